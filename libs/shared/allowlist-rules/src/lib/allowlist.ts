import type { AllowlistMap, Grant } from '@arrbiter/contracts';
import { HTTP_METHODS, isHttpMethod } from './http-method';
import { isRoutePath, routeShape, routeTemplateProblem } from './route-template';

/**
 * Effective allowlist: the template block, then each override path replaces that path's method list
 * (`[]` denies it); a path without an override inherits the template. Paths are matched by route
 * shape, so an override written `/Movie/{movieId}` replaces the template's `/movie/{id}`.
 */
export function effectiveAllowlist(template: AllowlistMap, overrides: AllowlistMap): AllowlistMap {
  const byShape = new Map<string, [string, string[]]>();
  for (const [path, methods] of Object.entries(template)) byShape.set(routeShape(path), [path, [...methods]]);
  for (const [path, methods] of Object.entries(overrides)) byShape.set(routeShape(path), [path, [...methods]]);
  const result: AllowlistMap = {};
  for (const [path, methods] of byShape.values()) {
    if (methods.length > 0) result[path] = [...new Set(methods)].sort();
  }
  return result;
}

/** Every (path, method) an allowlist grants, keyed by route shape and method. */
function grantMap(allowlist: AllowlistMap): Map<string, Grant> {
  const grants = new Map<string, Grant>();
  for (const [path, methods] of Object.entries(allowlist)) {
    const shape = routeShape(path);
    for (const method of methods) grants.set(`${shape} ${method}`, { path, method });
  }
  return grants;
}

function byPathThenMethod(a: Grant, b: Grant): number {
  return a.path.localeCompare(b.path) || a.method.localeCompare(b.method);
}

/** The grants of an allowlist, sorted by path then method (one per route shape and method). */
export function grantsOf(allowlist: AllowlistMap): Grant[] {
  return [...grantMap(allowlist).values()].sort(byPathThenMethod);
}

/**
 * What changed from one effective allowlist to another, paths compared by route shape: the grants a
 * revision's summary lists and the editor counts as added and removed.
 */
export function diffGrants(before: AllowlistMap, after: AllowlistMap): { added: Grant[]; removed: Grant[] } {
  const old = grantMap(before);
  const now = grantMap(after);
  const added = [...now].filter(([key]) => !old.has(key)).map(([, grant]) => grant);
  const removed = [...old].filter(([key]) => !now.has(key)).map(([, grant]) => grant);
  return { added: added.sort(byPathThenMethod), removed: removed.sort(byPathThenMethod) };
}

/**
 * Adds grants to overrides on top of the effective allowlist: each granted path's override becomes
 * its effective methods plus the new one, so nothing the template granted for that path is lost.
 */
export function withGrants(template: AllowlistMap, overrides: AllowlistMap, grants: readonly Grant[]): AllowlistMap {
  const effective = effectiveAllowlist(template, overrides);
  const effectiveByShape = new Map(Object.entries(effective).map(([path, methods]) => [routeShape(path), methods]));
  const overridePathByShape = new Map(Object.keys(overrides).map((path) => [routeShape(path), path]));
  const result: AllowlistMap = { ...overrides };
  for (const grant of grants) {
    const shape = routeShape(grant.path);
    const path = overridePathByShape.get(shape) ?? grant.path;
    const current = result[path] ?? effectiveByShape.get(shape) ?? [];
    result[path] = [...new Set([...current, grant.method])].sort();
    overridePathByShape.set(shape, path);
  }
  return result;
}

/**
 * An allowlist with grants added and grants taken away, paths compared by route shape: a grant on a
 * path the list names (in any spelling) adds its method there, another adds its path; a path left
 * with no method is dropped. Methods sorted.
 */
export function reviseAllowlist(
  allowlist: AllowlistMap,
  grants: readonly Grant[],
  revokes: readonly Grant[] = [],
): AllowlistMap {
  const byShape = new Map<string, { path: string; methods: Set<string> }>();
  for (const [path, methods] of Object.entries(allowlist))
    byShape.set(routeShape(path), { path, methods: new Set(methods) });
  for (const { path, method } of grants) {
    const shape = routeShape(path);
    const entry = byShape.get(shape) ?? { path, methods: new Set<string>() };
    entry.methods.add(method);
    byShape.set(shape, entry);
  }
  for (const { path, method } of revokes) byShape.get(routeShape(path))?.methods.delete(method);
  const result: AllowlistMap = {};
  for (const { path, methods } of byShape.values()) if (methods.size > 0) result[path] = [...methods].sort();
  return result;
}

function sameMethods(a: readonly string[], b: readonly string[]): boolean {
  const set = new Set(a);
  return set.size === new Set(b).size && b.every((method) => set.has(method));
}

/**
 * The overrides that make `template` give exactly `effective` (by route shape and method), changing
 * `overrides` as little as possible: an override that already gives the wanted methods is kept, one
 * that does not is set to them, one is added only where the template alone does not give them
 * (`[]` where the template grants what is no longer wanted), and one is dropped where it would name
 * no method over a template that grants none.
 */
export function overridesFor(template: AllowlistMap, overrides: AllowlistMap, effective: AllowlistMap): AllowlistMap {
  const wanted = new Map(Object.entries(effective).map(([path, methods]) => [routeShape(path), { path, methods }]));
  const templated = new Map(Object.entries(template).map(([path, methods]) => [routeShape(path), { path, methods }]));
  const result: AllowlistMap = {};
  const done = new Set<string>();
  for (const [path, methods] of Object.entries(overrides)) {
    const shape = routeShape(path);
    done.add(shape);
    const want = wanted.get(shape)?.methods ?? [];
    if (sameMethods(methods, want)) result[path] = methods;
    else if (want.length > 0 || (templated.get(shape)?.methods.length ?? 0) > 0) result[path] = [...want];
  }
  for (const [shape, { path, methods }] of wanted) {
    if (done.has(shape)) continue;
    done.add(shape);
    if (!sameMethods(templated.get(shape)?.methods ?? [], methods)) result[path] = [...methods];
  }
  for (const [shape, { path, methods }] of templated) {
    if (!done.has(shape) && methods.length > 0) result[path] = [];
  }
  return result;
}

/** Most paths one proxy's overrides may name. */
export const MAX_OVERRIDE_PATHS = 2000;

/** What is wrong with an override map (empty when it is valid): paths and lower-case methods. */
export function overrideProblems(overrides: unknown): string[] {
  if (typeof overrides !== 'object' || overrides === null || Array.isArray(overrides)) {
    return ['overrides must be an object mapping API paths to arrays of methods'];
  }
  const entries = Object.entries(overrides as Record<string, unknown>);
  if (entries.length > MAX_OVERRIDE_PATHS) return [`overrides may name at most ${MAX_OVERRIDE_PATHS} paths`];
  const problems: string[] = [];
  const shapes = new Map<string, string>();
  for (const [path, methods] of entries) {
    if (!isRoutePath(path)) {
      problems.push(
        `overrides: "${path.slice(0, 200)}" is not an API path (absolute, segments literal or {param}, no query)`,
      );
      continue;
    }
    const problem = routeTemplateProblem(path);
    if (problem !== undefined) {
      problems.push(`overrides: ${problem}`);
      continue;
    }
    const shape = routeShape(path);
    const twin = shapes.get(shape);
    if (twin !== undefined) problems.push(`overrides: "${path}" and "${twin}" are the same route`);
    shapes.set(shape, path);
    if (!Array.isArray(methods)) {
      problems.push(`overrides["${path}"] must be an array of methods`);
      continue;
    }
    for (const method of methods) {
      if (typeof method !== 'string' || !isHttpMethod(method)) {
        problems.push(
          `overrides["${path}"]: ${JSON.stringify(method)} is not a lower-case HTTP method (${HTTP_METHODS.join(', ')})`,
        );
      }
    }
    if (new Set(methods).size !== methods.length) problems.push(`overrides["${path}"] lists a method twice`);
  }
  return problems;
}
