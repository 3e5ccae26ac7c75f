import type {
  AllowlistMap,
  FitMissingCall,
  FitResult,
  FitUnusedGrant,
  Grant,
  NamedCall,
  RouteRiskDto,
} from '@arrbiter/contracts';
import {
  canonicalizePath,
  compileAllowlist,
  effectiveAllowlist,
  grantsOf,
  ResolvedRoute,
  resolveProxyRoute,
  RouteMatcher,
  routeShape,
} from '@arrbiter/server/catalog';
import { routeRisk } from '@arrbiter/server/permissions';
import { HttpMethod, reviseAllowlist } from '@arrbiter/shared/allowlist-rules';
import { concretePath, concreteRequest } from './call-paths';
import type { KnownClient, KnownClientCall } from './known-client';

/**
 * A call as the proxy sees it (both undefined when the proxy refuses the path itself, 400):
 * - `segments`: the canonical segments of the request sent (a template path made concrete with its
 *   samples, `concretePath`): what the proxy matches;
 * - `path`: the canonical path as the data writes it, `{param}`s kept (`/backup/scheduled/{file}`): what
 *   granting the call adds when it resolves to no catalog route, so the grant matches every value.
 */
export interface CanonicalCall {
  call: KnownClientCall;
  path?: string;
  segments?: string[];
}

/** The client's calls to a service type, with their canonical paths (what the proxy matches). */
export function canonicalCalls(client: KnownClient, serviceType: string): CanonicalCall[] {
  const calls = (client.services as Record<string, KnownClientCall[] | undefined>)[serviceType] ?? [];
  return calls.map((call) => {
    const sent = canonicalizePath(concretePath(call));
    if (!sent.ok) return { call };
    if (!call.pathSamples) return { call, path: sent.path, segments: sent.segments };
    const template = canonicalizePath(call.path);
    return template.ok ? { call, path: template.path, segments: sent.segments } : { call };
  });
}

/** The request as the client sends it: path (a template made concrete with its samples), and `?query` when it has one. */
export function sampleOf(call: KnownClientCall): string {
  return concreteRequest(call);
}

/**
 * How well an effective allowlist fits a client on one service type, decided exactly as the proxy
 * decides each call (`AllowlistInterceptor`): canonical path, the service's catalog and the
 * allowlist's own paths (`resolveProxyRoute`), then the compiled allowlist. Calls outside the API
 * (SignalR, `/ping`…) resolve to an allowlist path when one names them, as on the proxy.
 *
 * - `missing`: the calls the allowlist refuses, one per method and route (the route they resolve to,
 *   or their exact path when they resolve to none: what granting them adds, as a warning's grant
 *   does), with the first such call as sample;
 * - `unused`: the allowlist's grants that no call of the client resolves to.
 *
 * Learning mode is left out: it is about the allowlist. A call whose path the proxy refuses outright
 * (400) is neither covered nor missing (no grant opens it; the data spec keeps such paths out).
 */
export function fitOf(
  client: KnownClient,
  serviceType: string,
  catalog: RouteMatcher,
  effective: AllowlistMap,
): FitResult {
  const { allowlist, extraRoutes } = compileAllowlist(catalog, effective);
  const calls = canonicalCalls(client, serviceType);
  const used = new Set<string>();
  const missing = new Map<string, FitMissingCall>();
  let covered = 0;
  for (const { call, path, segments } of calls) {
    if (path === undefined || segments === undefined) continue;
    const route = resolveProxyRoute(catalog, extraRoutes, segments, call.method);
    if (route && allowlist.allows(route.shape, call.method)) {
      covered += 1;
      used.add(`${call.method} ${route.shape}`);
      continue;
    }
    const granted = route?.path ?? path;
    const key = `${call.method} ${routeShape(granted)}`;
    if (!missing.has(key))
      missing.set(key, {
        method: call.method,
        route: granted,
        sample: sampleOf(call),
        source: { ...call.source },
        risk: riskOfRoute(serviceType, call.method, route?.operations ? route : granted),
      });
  }
  const unused: FitUnusedGrant[] = grantsOf(effective)
    .filter((grant) => !used.has(`${grant.method} ${routeShape(grant.path)}`))
    .map((grant) => ({
      method: grant.method,
      route: grant.path,
      risk: riskOfRoute(serviceType, grant.method, catalogRouteOf(catalog, grant.path, grant.method) ?? grant.path),
    }));
  return {
    client: client.id,
    clientName: client.name,
    serviceType,
    calls: calls.length,
    covered,
    missing: [...missing.values()],
    unused,
  };
}

/** Why a fit's changes cannot be planned: a named call that is not what the request says it is. */
export class FitChangeError extends Error {
  constructor(
    /** `sensitive`: named in `include.sensitive` but not a missing sensitive call; `unused`: listed in `revoke` but not unused. */
    readonly kind: 'sensitive' | 'unused',
    readonly call: NamedCall,
    message: string,
  ) {
    super(message);
  }
}

/** What to apply of a fit. */
export interface FitChangeOptions {
  /** Grant the missing calls that are not sensitive, plus the sensitive ones `includeSensitive` names (`all`: every one). */
  grantMissing: boolean;
  includeSensitive?: readonly NamedCall[] | 'all';
  /** Revoke exactly these grants, each of which must be among the fit's `unused`. */
  revoke?: readonly NamedCall[];
}

/** Whether a fit item is the named call: same method, same route shape. */
export function isNamedCall(item: { method: string; route: string }, call: NamedCall): boolean {
  return item.method === call.method.toLowerCase() && routeShape(item.route) === routeShape(call.route);
}

function named(call: NamedCall): string {
  return `${call.method.toUpperCase()} ${call.route}`;
}

/**
 * What applying a fit changes: its missing calls that are not sensitive granted, with the sensitive
 * ones named; exactly the listed unused grants revoked. A named sensitive call that is not a missing
 * sensitive call of the fit, or a listed grant that is not unused, throws `FitChangeError`.
 */
export function fitChanges(
  fit: Pick<FitResult, 'missing' | 'unused'>,
  options: FitChangeOptions,
): { grants: Grant[]; revokes: Grant[] } {
  const include = options.includeSensitive ?? [];
  if (include !== 'all') {
    for (const call of include) {
      if (!fit.missing.some((item) => item.risk.sensitive && isNamedCall(item, call)))
        throw new FitChangeError(
          'sensitive',
          call,
          `${named(call)} is not a missing sensitive call of this fit: include.sensitive names only those`,
        );
    }
  }
  for (const call of options.revoke ?? []) {
    if (!fit.unused.some((item) => isNamedCall(item, call)))
      throw new FitChangeError(
        'unused',
        call,
        `${named(call)} is not an unused grant of this fit: nothing was revoked`,
      );
  }
  const granted = fit.missing.filter(
    (item) => !item.risk.sensitive || include === 'all' || include.some((call) => isNamedCall(item, call)),
  );
  const revoked = fit.unused.filter((item) => (options.revoke ?? []).some((call) => isNamedCall(item, call)));
  return {
    grants: options.grantMissing ? granted.map(({ method, route }) => ({ path: route, method })) : [],
    revokes: revoked.map(({ method, route }) => ({ path: route, method })),
  };
}

/** A route's risk as the contracts write it (`routeRisk`: the catalog route's operations when there is one). */
export function riskOfRoute(
  serviceType: string,
  method: string,
  route: string | { path: string; operations?: ResolvedRoute['operations'] },
): RouteRiskDto {
  return { ...routeRisk(serviceType, undefined, method, route) };
}

/**
 * The catalog route an allowlist path names (for its operations, which the risk reads), found by
 * resolving the path with a sample in place of each parameter; undefined when that is not the route.
 */
function catalogRouteOf(catalog: RouteMatcher, path: string, method: string): ResolvedRoute | undefined {
  const segments = path
    .split('/')
    .filter((segment) => segment !== '')
    .map((segment) => segment.replace(/\{[^}]*\}/g, '1'));
  const route = catalog.resolve(segments, method as HttpMethod);
  return route?.operations && route.shape === routeShape(path) ? route : undefined;
}

/** Paths and methods sorted by code point (as `jq -S` and Python's `sort_keys` sort them). */
function sortedBlock(block: AllowlistMap): AllowlistMap {
  const byCodePoint = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);
  return Object.fromEntries(
    Object.keys(block)
      .sort(byCodePoint)
      .map((path) => [path, [...new Set(block[path])].sort(byCodePoint)]),
  );
}

/**
 * A template block with a fit's missing calls added (the sensitive ones only with `includeSensitive`)
 * and its unused grants removed, sorted.
 */
export function suggestedBlock(
  block: AllowlistMap,
  fit?: Pick<FitResult, 'missing' | 'unused'>,
  includeSensitive = false,
): AllowlistMap {
  const { grants, revokes } = fit
    ? fitChanges(fit, {
        grantMissing: true,
        includeSensitive: includeSensitive ? 'all' : [],
        revoke: fit.unused.map(({ method, route }) => ({ method, route })),
      })
    : { grants: [], revokes: [] };
  return sortedBlock(reviseAllowlist(effectiveAllowlist(block, {}), grants, revokes));
}

/**
 * A template block as the community repository's files are written: JSON with a 4-space indent, every
 * method on a line of its own, and a final newline.
 */
export function templateFileText(block: AllowlistMap): string {
  return `${JSON.stringify(block, null, 4)}\n`;
}
