import type { AllowlistMap, Grant } from '@arrbiter/contracts';
import {
  grantsOf as grantsByRoute,
  inEditorOrder,
  isRoutePath,
  routeTemplateProblem,
} from '@arrbiter/shared/allowlist-rules';

// The draft is the server's allowlist rules (route shapes, effective allowlist, added/removed grants).
export { AllowlistDraft, METHOD_ORDER, sortMethods } from '@arrbiter/shared/allowlist-rules';
export type { GrantSource, MethodState } from '@arrbiter/shared/allowlist-rules';

/** Methods offered for a path the catalog does not describe. */
export const DEFAULT_METHODS: readonly string[] = ['get', 'post', 'put', 'patch', 'delete', 'head'];

/** The grants of an allowlist (one per route and method, as the server counts them), in the editor's order. */
export function grantsOf(map: AllowlistMap): Grant[] {
  return inEditorOrder(grantsByRoute(map));
}

/** A path an administrator may add by hand: an API path the server accepts in overrides. */
export function customPathProblem(path: string): string | null {
  if (!path.startsWith('/')) return 'A path starts with /, like /api/v3/movie/{id}.';
  if (/[\s?#]/.test(path)) return 'A path has no spaces, query (?) or fragment (#).';
  if (path.length > 1 && path.endsWith('/')) return 'Leave out the trailing slash.';
  if (!isRoutePath(path)) return 'Segments are literal text or {parameters}: no empty, . or .. segment, no backslash.';
  const problem = routeTemplateProblem(path);
  return problem === undefined ? null : `Not a usable route: ${problem}.`;
}
