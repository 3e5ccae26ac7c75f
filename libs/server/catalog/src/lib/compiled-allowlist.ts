import type { AllowlistMap } from '@arrbiter/contracts';
import { HttpMethod, routeShape } from '@arrbiter/shared/allowlist-rules';
import { moreSpecific, ResolvedRoute, RouteMatcher } from './route-matcher';

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

/** An effective allowlist as the proxy checks it against one service's catalog. */
export interface AllowlistRoutes {
  allowlist: CompiledAllowlist;
  /** The allowlist's paths the catalog does not know (SignalR, `/ping`…), as routes of their own; undefined when none. */
  extraRoutes?: RouteMatcher;
}

/** Compiles an effective allowlist against a service's catalog (`ProxyRegistry` does it once per proxy state). */
export function compileAllowlist(catalog: RouteMatcher, effective: AllowlistMap): AllowlistRoutes {
  const allowlist = new CompiledAllowlist(effective);
  const unknown = allowlist.paths.filter((path) => !catalog.hasShape(routeShape(path)));
  return {
    allowlist,
    extraRoutes: unknown.length > 0 ? new RouteMatcher(unknown.map((path) => ({ path }))) : undefined,
  };
}

/**
 * The route the proxy resolves a request to (canonical segments, see `canonicalizePath`): the catalog's
 * or the allowlist's own path, whichever is more specific. Whether it is let through is then
 * `allowlist.allows(route.shape, method)`.
 */
export function resolveProxyRoute(
  catalog: RouteMatcher,
  extraRoutes: RouteMatcher | undefined,
  segments: readonly string[],
  method: HttpMethod,
): ResolvedRoute | undefined {
  return moreSpecific(catalog.resolve(segments, method), extraRoutes?.resolve(segments, method));
}
