import { HttpMethod } from './http-method';
import { routeShape } from './route-path';

/** The stored override form: `{"/api/v3/movie/{id}": ["get", "put"]}`. */
export type AllowlistMap = Record<string, string[]>;

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

/** An effective allowlist ready for the hot path: route shape → granted methods. */
export class CompiledAllowlist {
  private readonly grants = new Map<string, ReadonlySet<string>>();

  constructor(readonly effective: AllowlistMap) {
    for (const [path, methods] of Object.entries(effective)) {
      if (methods.length > 0) this.grants.set(routeShape(path), new Set(methods));
    }
  }

  allows(shape: string, method: HttpMethod): boolean {
    return this.grants.get(shape)?.has(method) ?? false;
  }

  /** The allowlist's paths (for resolving requests to routes the catalog does not know). */
  get paths(): string[] {
    return Object.keys(this.effective);
  }
}
