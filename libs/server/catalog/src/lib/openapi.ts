import { operationSecretFields } from '@arrbiter/server/permissions';
import { HttpMethod, isHttpMethod, routeTemplateProblem } from '@arrbiter/shared/allowlist-rules';

/** One operation of a catalog route: what the permission editor and route resolution need. */
export interface CatalogOperation {
  /** Path parameters the description types `integer` for this method. */
  integerParams: string[];
  tags: string[];
  summary?: string;
  /**
   * The secret fields (apiKey, password…) its request or response schemas carry, when any: the schema
   * rule of `routeRisk`, found once when the description is read, never per call.
   */
  secretFields?: string[];
}

export interface CatalogRoute {
  path: string;
  operations: Partial<Record<HttpMethod, CatalogOperation>>;
}

export class InvalidOpenApiError extends Error {}

type Json = Record<string, unknown>;

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Resolves a local `$ref` (`#/components/parameters/x`) once; anything else is returned as is. */
function deref(doc: Json, value: unknown): unknown {
  if (!isObject(value) || typeof value['$ref'] !== 'string') return value;
  const ref = value['$ref'];
  if (!ref.startsWith('#/')) return value;
  let node: unknown = doc;
  for (const part of ref.slice(2).split('/'))
    node = isObject(node) ? node[part.replace(/~1/g, '/').replace(/~0/g, '~')] : undefined;
  return node ?? value;
}

function integerPathParams(doc: Json, ...lists: unknown[]): string[] {
  const types = new Map<string, boolean>();
  for (const list of lists) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const param = deref(doc, raw);
      if (!isObject(param) || param['in'] !== 'path' || typeof param['name'] !== 'string') continue;
      const schema = deref(doc, param['schema']);
      types.set(param['name'], isObject(schema) && schema['type'] === 'integer');
    }
  }
  return [...types].filter(([, integer]) => integer).map(([name]) => name);
}

/** The web UI's catch-all (`/{path}`) serves static files: it is not an API route. */
function isCatchAll(path: string): boolean {
  return /^\/\{[^{}/]+\}\/?$/.test(path);
}

/** Told of each route of a description that is left out, and why. */
export type SkippedRouteReporter = (path: string, reason: string) => void;

/**
 * Reads the routes of an OpenAPI 3 (or Swagger 2) description. A route whose template is refused
 * (see `routeTemplateProblem`) is left out and reported; the rest of the description still loads.
 */
export function parseOpenApi(document: unknown, onSkipped?: SkippedRouteReporter): CatalogRoute[] {
  if (!isObject(document)) throw new InvalidOpenApiError('The description is not a JSON object');
  if (typeof document['openapi'] !== 'string' && typeof document['swagger'] !== 'string') {
    throw new InvalidOpenApiError('The description has neither an "openapi" nor a "swagger" version field');
  }
  const paths = document['paths'];
  if (!isObject(paths)) throw new InvalidOpenApiError('The description has no "paths" object');
  const routes: CatalogRoute[] = [];
  for (const [path, rawItem] of Object.entries(paths)) {
    if (!path.startsWith('/') || isCatchAll(path)) continue;
    const problem = routeTemplateProblem(path);
    if (problem !== undefined) {
      onSkipped?.(path, problem);
      continue;
    }
    const item = deref(document, rawItem);
    if (!isObject(item)) continue;
    const operations: CatalogRoute['operations'] = {};
    for (const [key, rawOperation] of Object.entries(item)) {
      const method = key.toLowerCase();
      if (!isHttpMethod(method) || !isObject(rawOperation)) continue;
      const secretFields = operationSecretFields(document, rawOperation, item['parameters']);
      operations[method] = {
        integerParams: integerPathParams(document, item['parameters'], rawOperation['parameters']),
        tags: Array.isArray(rawOperation['tags'])
          ? rawOperation['tags'].filter((t): t is string => typeof t === 'string')
          : [],
        ...(typeof rawOperation['summary'] === 'string' ? { summary: rawOperation['summary'] } : {}),
        ...(secretFields.length > 0 ? { secretFields } : {}),
      };
    }
    if (Object.keys(operations).length > 0) routes.push({ path, operations });
  }
  return routes;
}
