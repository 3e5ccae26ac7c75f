import type { TemplateProblem } from '@arrbiter/contracts';
import { HTTP_METHODS } from '@arrbiter/server/catalog';

/**
 * A sync report names a file it cannot use and says what is wrong, never what the file holds: the
 * reader's messages quote the text (JSON.parse) and the keys and values (validation), so each reason
 * is rewritten from fixed phrases. A reason not recognised here gets the general one (fail closed).
 */

/** Reasons made of fixed text only (names, sizes, kinds): kept as they are. */
const FIXED = [
  /^not a JSON object mapping API paths to arrays of HTTP methods$/,
  /^unknown service type \(known: [a-z, ]+\)$/,
  /^more than \d+ template files: the rest are skipped$/,
  /^the name must be 1–100 letters, digits, spaces or \. _ \( \) & \+ ' -$/,
  /^not a regular file$/,
  /^larger than \d+ KiB$/,
  /^the file may name at most \d+ paths$/,
];

/** What validation found (each message quotes the file), as fixed phrases. */
const FINDINGS: readonly (readonly [RegExp, string])[] = [
  [/ is not an API path /, 'a key is not an API path (absolute, segments literal or {param}, no query)'],
  [/ are the same route/, 'two keys are the same route'],
  [/ must be an array of methods/, 'a value is not an array of methods'],
  [/ is not a lower-case HTTP method /, `a method is not a lower-case HTTP method (${HTTP_METHODS.join(', ')})`],
];

const GENERAL = 'not a usable template: a JSON object mapping API paths to arrays of lower-case HTTP methods';

/** A reason for a file, without any of the file's bytes. */
export function contentFreeReason(reason: string): string {
  if (FIXED.some((fixed) => fixed.test(reason))) return reason;
  if (reason.startsWith('not valid JSON')) {
    // Node's messages quote the text; only where it went wrong is kept.
    const at = /\(line (\d+) column (\d+)\)\)$/.exec(reason);
    if (at) return `not valid JSON (line ${at[1]}, column ${at[2]})`;
    if (reason.endsWith('(Unexpected end of JSON input)')) return 'not valid JSON (it ends too soon)';
    return 'not valid JSON';
  }
  const findings = FINDINGS.filter(([marker]) => marker.test(reason)).map(([, phrase]) => phrase);
  return findings.length > 0 ? `not a usable template: ${findings.join('; ')}` : GENERAL;
}

export function withoutContent(problems: readonly TemplateProblem[]): TemplateProblem[] {
  return problems.map((problem) => ({ ...problem, reason: contentFreeReason(problem.reason) }));
}
