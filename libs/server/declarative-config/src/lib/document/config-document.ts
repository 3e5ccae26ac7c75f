import type { AllowlistMap, ConfigDocument } from '@arrbiter/contracts';
import { REFERENCE_PATTERN, ReferenceValue } from '@arrbiter/server/config';
import { overrideProblems, SERVICE_TYPE } from '@arrbiter/server/catalog';
import { normaliseOverrides } from '@arrbiter/server/permissions';
import { checkBaseUrl } from '@arrbiter/server/services';
import { TEMPLATE_NAME } from '@arrbiter/server/templates';
import { plainToInstance } from 'class-transformer';
import { validate, ValidationError } from 'class-validator';
import { jsonShapeProblem, MAX_JSON_DEPTH } from '@arrbiter/server/http';
import { isCollection, isPair, parseDocument, stringify } from 'yaml';
import { ConfigDocumentDto } from './config-document.dto';

/** How a document is written: JSON, or YAML (`application/yaml`). */
export type DocumentFormat = 'json' | 'yaml';

/** A document that cannot be read, each problem naming where it is (`apps[2].proxies[0].key: …`). */
export class DocumentProblems extends Error {
  constructor(readonly problems: readonly string[]) {
    super(`The configuration document is not valid:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'DocumentProblems';
  }
}

/** At most this many problems are reported (a wholly wrong document would list thousands). */
const MAX_PROBLEMS = 50;

/** The problem of a document nested too deeply (the stack overflow a parser reports, too). */
const TOO_DEEP = `the document is nested deeper than ${MAX_JSON_DEPTH} levels`;

/** Refuses a parsed document nested too deeply or using a reserved key (`constructor`), naming where. */
function checkShape(value: unknown): unknown {
  const problem = jsonShapeProblem(value);
  if (problem !== undefined) throw new DocumentProblems([`the document ${problem}`]);
  return value;
}

/**
 * The document's text as a plain value (YAML 1.2 reads JSON too); refuses aliases bombs, duplicate
 * keys, nesting deeper than `MAX_JSON_DEPTH` (checked on YAML's tree before it becomes a value) and
 * reserved keys (`constructor`, `__proto__`, `prototype`).
 */
export function parseDocumentText(text: string, format: DocumentFormat): unknown {
  if (format === 'json') {
    let value: unknown;
    try {
      value = JSON.parse(text) as unknown;
    } catch (error) {
      throw new DocumentProblems([`the document is not valid JSON (${(error as Error).message})`]);
    }
    return checkShape(value);
  }
  const parsed = parseDocument(text, { uniqueKeys: true, prettyErrors: false });
  if (parsed.errors.length > 0) {
    // The parser catches its own stack overflow: only nesting thousands of levels deep causes one.
    if (parsed.errors.some((error) => error.message.includes('Maximum call stack size exceeded')))
      throw new DocumentProblems([TOO_DEEP]);
    throw new DocumentProblems(
      parsed.errors.slice(0, MAX_PROBLEMS).map((error) => `the document is not valid YAML (${error.message})`),
    );
  }
  if (yamlNestedDeeperThan(parsed.contents, MAX_JSON_DEPTH)) throw new DocumentProblems([TOO_DEEP]);
  let value: unknown;
  try {
    value = parsed.toJS({ maxAliasCount: 100 }) as unknown;
  } catch (error) {
    throw new DocumentProblems([`the document is not valid YAML (${(error as Error).message})`]);
  }
  // Aliases can nest what each stays shallow in the tree.
  return checkShape(value);
}

/** Whether YAML's tree nests maps and sequences more than `max` levels deep (aliases not followed); iterative. */
function yamlNestedDeeperThan(root: unknown, max: number): boolean {
  const nodes: unknown[] = [root];
  const depths: number[] = [0];
  while (nodes.length > 0) {
    const node = nodes.pop();
    const depth = depths.pop() as number;
    if (isPair(node)) {
      nodes.push(node.key, node.value);
      depths.push(depth, depth);
    } else if (isCollection(node)) {
      if (depth + 1 > max) return true;
      for (const item of node.items) {
        nodes.push(item);
        depths.push(depth + 1);
      }
    }
  }
  return false;
}

/** The document as text: JSON indented by two spaces, or YAML. */
export function serialiseDocument(document: ConfigDocument, format: DocumentFormat): string {
  return format === 'json' ? `${JSON.stringify(document, null, 2)}\n` : stringify(document, { lineWidth: 0 });
}

/** Every string in a parsed document, with its path (`services[0].apiKey`). */
function* strings(value: unknown, path: string): Generator<{ path: string; value: string }> {
  if (typeof value === 'string') yield { path, value };
  else if (Array.isArray(value)) for (const [i, item] of value.entries()) yield* strings(item, `${path}[${i}]`);
  else if (typeof value === 'object' && value !== null)
    for (const [key, item] of Object.entries(value)) yield* strings(item, path === '' ? key : `${path}.${key}`);
}

/**
 * Puts the values of a file's secret references (`${NAME}`, `${file:/path}`) into the strings of its
 * parsed document (`$${` is a literal `${`). Problems name the path and the reference, never a value.
 */
export function resolveReferences(document: unknown, references: ReadonlyMap<string, ReferenceValue>): unknown {
  const problems: string[] = [];
  const resolve = (value: unknown, path: string): unknown => {
    if (typeof value === 'string') {
      return value.replace(REFERENCE_PATTERN, (reference: string) => {
        if (reference.startsWith('$$')) return reference.slice(1);
        const found = references.get(reference);
        if (found === undefined || 'problem' in found) {
          problems.push(`${path}: ${reference} cannot be resolved: ${found?.problem ?? 'unknown reference'}`);
          return '';
        }
        return found.value;
      });
    }
    if (Array.isArray(value)) return value.map((item, i) => resolve(item, `${path}[${i}]`));
    if (typeof value === 'object' && value !== null) {
      const copy: Record<string, unknown> = {};
      for (const [key, item] of Object.entries(value)) {
        // An own `__proto__` key stays a plain key (and is then refused as an API path).
        Object.defineProperty(copy, key, {
          value: resolve(item, path === '' ? key : `${path}.${key}`),
          enumerable: true,
          writable: true,
          configurable: true,
        });
      }
      return copy;
    }
    return value;
  };
  const resolved = resolve(document, '');
  if (problems.length > 0) throw new DocumentProblems(problems.slice(0, MAX_PROBLEMS));
  return resolved;
}

/**
 * Refuses secret references in a document sent over the admin API: they are resolved only from the
 * operator's files (`CONFIG_FILE`, `main.js import`), never from the server's environment on an
 * admin's word.
 */
export function refuseReferences(document: unknown): void {
  const problems: string[] = [];
  for (const { path, value } of strings(document, '')) {
    for (const [reference] of value.matchAll(REFERENCE_PATTERN)) {
      if (reference.startsWith('$$')) continue;
      problems.push(
        `${path}: ${reference} is a secret reference; they are resolved only in CONFIG_FILE and \`main.js import\`, so send the value itself`,
      );
      break;
    }
  }
  if (problems.length > 0) throw new DocumentProblems(problems.slice(0, MAX_PROBLEMS));
}

/** class-validator's errors as `path: reason` lines (`apps[2].slug must be …`). */
function flatten(errors: readonly ValidationError[], parent = ''): string[] {
  const lines: string[] = [];
  for (const error of errors) {
    const path = /^\d+$/.test(error.property)
      ? `${parent}[${error.property}]`
      : parent === ''
        ? error.property
        : `${parent}.${error.property}`;
    for (const [constraint, message] of Object.entries(error.constraints ?? {})) {
      if (constraint === 'whitelistValidation') lines.push(`${path} is not a known field`);
      else if (message.startsWith(`${error.property} `)) lines.push(`${path}${message.slice(error.property.length)}`);
      else lines.push(`${path}: ${message}`);
    }
    lines.push(...flatten(error.children ?? [], path));
  }
  return lines;
}

/** `overrideProblems`' lines ("overrides: …", "overrides["/x"] …") under the map's own path. */
function mapProblems(map: unknown, path: string): string[] {
  return overrideProblems(map).map((problem) => problem.replace(/^overrides/, path));
}

/**
 * Checks a parsed document completely before anything is read or written: its shape (unknown fields
 * refused), base URLs, names that must be unique, override and template maps, keys. Returns the
 * document with base URLs and maps normalised; throws `DocumentProblems` naming every problem's path.
 */
export async function validateDocument(raw: unknown): Promise<ConfigDocument> {
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
    throw new DocumentProblems(['the document must be an object with a version (see docs/declarative-config.md)']);
  }
  // Before class-transformer walks it (a nested `constructor` key made it throw).
  checkShape(raw);
  const errors = await validate(plainToInstance(ConfigDocumentDto, raw), {
    whitelist: true,
    forbidNonWhitelisted: true,
    forbidUnknownValues: true,
  });
  if (errors.length > 0) throw new DocumentProblems(flatten(errors).slice(0, MAX_PROBLEMS));

  // The shape is right: what follows reads the parsed value itself (class-transformer's copy would
  // have dropped a `__proto__` key of a map instead of letting it be refused).
  const document = structuredClone(raw) as ConfigDocument;
  const problems: string[] = [];
  const seen = <T>(map: Map<T, string>, key: T, path: string, what: string) => {
    const first = map.get(key);
    if (first !== undefined) problems.push(`${path}: ${what} is already listed at ${first}`);
    else map.set(key, path);
  };

  const baseUrls = new Map<string, string>();
  for (const [i, service] of (document.services ?? []).entries()) {
    const path = `services[${i}]`;
    const check = checkBaseUrl(service.baseUrl);
    if (!check.ok) {
      problems.push(`${path}.${check.problem}`);
      continue;
    }
    service.baseUrl = check.url;
    seen(baseUrls, check.url, `${path}.baseUrl`, check.url);
  }

  const templateNames = new Map<string, string>();
  for (const [i, template] of (document.templates ?? []).entries()) {
    const path = `templates[${i}]`;
    if (!TEMPLATE_NAME.test(template.name))
      problems.push(
        `${path}.name must be 1–100 letters, digits, spaces or . _ ( ) & + ' -, starting with a letter or digit`,
      );
    seen(templateNames, template.name.toLowerCase(), `${path}.name`, `"${template.name}"`);
    const blocks: Record<string, AllowlistMap> = {};
    for (const [type, block] of Object.entries(template.blocks)) {
      if (!SERVICE_TYPE.test(type)) {
        problems.push(`${path}.blocks: "${type.slice(0, 40)}" is not a service type such as radarr`);
        continue;
      }
      const found = mapProblems(block, `${path}.blocks.${type}`);
      if (found.length > 0) problems.push(...found);
      else blocks[type] = normaliseOverrides(block);
    }
    template.blocks = blocks;
  }

  const slugs = new Map<string, string>();
  const keys = new Map<string, string>();
  for (const [i, app] of (document.apps ?? []).entries()) {
    const path = `apps[${i}]`;
    seen(slugs, app.slug, `${path}.slug`, app.slug);
    for (const [j, proxy] of (app.proxies ?? []).entries()) {
      const proxyPath = `${path}.proxies[${j}]`;
      if (proxy.overrides !== undefined) {
        const found = mapProblems(proxy.overrides, `${proxyPath}.overrides`);
        if (found.length > 0) problems.push(...found);
        else proxy.overrides = normaliseOverrides(proxy.overrides);
      }
      if (proxy.key !== undefined) seen(keys, proxy.key, `${proxyPath}.key`, 'this key');
    }
  }
  if (problems.length > 0) throw new DocumentProblems(problems.slice(0, MAX_PROBLEMS));
  return document;
}
