import { ROUTE_PARAM } from '@arrbiter/shared/allowlist-rules';

/** How a route segment matches: a literal, a literal with embedded parameters, or one whole parameter. */
export const enum SegmentKind {
  Literal = 0,
  Mixed = 1,
  Param = 2,
}

/**
 * A segment with embedded parameters (`{name}.ics`) as plain data: lower-cased literal parts around the
 * gaps the parameters fill. `literals` has one more entry than `gaps`; a gap holds one or more adjacent
 * parameters and needs at least that many characters (each parameter matches a non-empty part).
 */
export interface MixedPattern {
  /** Literal parts, lower case: `literals[0]` before the first gap, the last after the last gap (either may be ''). */
  literals: string[];
  /** Per gap, the fewest characters it takes (its number of parameters). */
  gaps: number[];
  /** Identity of the pattern (parameter names erased), for sharing a node between equal patterns. */
  key: string;
}

export interface RouteSegment {
  kind: SegmentKind;
  /** Lower-cased literal text (Literal), the parameter name (Param), or the lower-cased segment (Mixed). */
  text: string;
  /** Mixed only: what the segment matches. */
  pattern?: MixedPattern;
  /** Parameter names in this segment, in order. */
  params: string[];
}

/** Splits an OpenAPI path template (`/api/v3/movie/{id}`) into matchable segments. */
export function parseRoutePath(path: string): RouteSegment[] {
  return path
    .split('/')
    .filter((s) => s.length > 0)
    .map((segment) => {
      const whole = /^\{([^{}/]+)\}$/.exec(segment);
      if (whole) return { kind: SegmentKind.Param, text: whole[1], params: [whole[1]] };
      const params = [...segment.matchAll(ROUTE_PARAM)].map((m) => m[1]);
      const text = segment.toLowerCase();
      if (params.length === 0) return { kind: SegmentKind.Literal, text, params };
      return { kind: SegmentKind.Mixed, text, pattern: mixedPattern(text), params };
    });
}

function mixedPattern(text: string): MixedPattern {
  // With its capturing group, split() alternates literal, parameter name, literal, …, literal.
  const parts = text.split(ROUTE_PARAM);
  const literals = [parts[0]];
  const gaps: number[] = [];
  for (let i = 1; i < parts.length; i += 2) {
    if (gaps.length > 0 && literals[literals.length - 1] === '') {
      // No literal since the previous parameter: this one widens the same gap by a character.
      gaps[gaps.length - 1] += 1;
      literals[literals.length - 1] = parts[i + 1];
    } else {
      gaps.push(1);
      literals.push(parts[i + 1]);
    }
  }
  return { literals, gaps, key: text.replace(ROUTE_PARAM, '{}') };
}

/**
 * Whether a (lower-cased) request segment matches a mixed pattern. The first and last literal are
 * anchored; each literal between is taken at its leftmost place after the gap before it. Leftmost is
 * never worse (a later place only leaves less room for the rest), so nothing is ever retried and the
 * search only moves forward: at most (segment length × longest literal) character comparisons, unlike
 * the regular expression `^x[^/]+[^/]+y$`, which tries every split of the request between parameters.
 */
export function matchesPattern(pattern: MixedPattern, segment: string): boolean {
  const { literals, gaps } = pattern;
  const head = literals[0];
  const tail = literals[literals.length - 1];
  const end = segment.length - tail.length;
  if (end < head.length || !segment.startsWith(head) || !segment.endsWith(tail)) return false;
  let at = head.length;
  for (let i = 1; i < literals.length - 1; i += 1) {
    const found = segment.indexOf(literals[i], at + gaps[i - 1]);
    if (found < 0 || found + literals[i].length > end) return false;
    at = found + literals[i].length;
  }
  return end - at >= gaps[gaps.length - 1];
}
