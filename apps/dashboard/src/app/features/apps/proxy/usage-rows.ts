import type { AllowlistMap, Grant, RouteRiskDto, RouteUsage, WarningDto } from '@arrbiter/contracts';
import { routeShape } from '@arrbiter/shared/allowlist-rules';
import { grantsOf } from './allowlist-draft';

/** A called route with what can be done about it now. */
export interface RouteRow extends RouteUsage {
  /** The proxy's effective allowlist grants this method on this route now. */
  allowed: boolean;
  /** The open (or learned) warning of this method and route: granting it also closes the warning. */
  warningId: string | null;
  /** What granting it opens (from its warning; null when there is none). */
  risk: RouteRiskDto | null;
}

/** An allowlist as route shape → granted methods. */
function byShape(allowlist: AllowlistMap): Map<string, Set<string>> {
  const shapes = new Map<string, Set<string>>();
  for (const [path, methods] of Object.entries(allowlist)) {
    const shape = routeShape(path);
    const known = shapes.get(shape) ?? new Set<string>();
    for (const method of methods) known.add(method.toLowerCase());
    shapes.set(shape, known);
  }
  return shapes;
}

/**
 * The called routes as the usage tab lists them: whether each is allowed now (routes compared by shape,
 * as the gateway does) and the warning a grant would close.
 */
export function routeRows(
  routes: readonly RouteUsage[],
  effective: AllowlistMap,
  warnings: readonly WarningDto[],
): RouteRow[] {
  const granted = byShape(effective);
  const open = new Map<string, WarningDto>();
  for (const w of warnings)
    if (w.status === 'open' || w.status === 'learned') open.set(`${w.method} ${w.route ?? w.path}`, w);
  return routes.map((route) => ({
    ...route,
    allowed: granted.get(routeShape(route.route))?.has(route.method) ?? false,
    warningId: open.get(`${route.method} ${route.route}`)?.id ?? null,
    risk: open.get(`${route.method} ${route.route}`)?.risk ?? null,
  }));
}

/** Grants of the effective allowlist with no call in the period: what an allowlist could do without. */
export function unusedGrants(effective: AllowlistMap, routes: readonly RouteUsage[]): Grant[] {
  const called = new Set(routes.map((r) => `${r.method} ${routeShape(r.route)}`));
  return grantsOf(effective).filter((g) => !called.has(`${g.method} ${routeShape(g.path)}`));
}
