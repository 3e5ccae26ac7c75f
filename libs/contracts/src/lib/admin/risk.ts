/**
 * What a route risks, by the permissions lib's one rule (`routeRisk`): every response that names a
 * route (warnings, fit, usage, endpoints, connect, suggested, recent calls) carries it.
 */

/** A short grouping of what a call does (the dashboard groups calls by it). */
export type RoutePurposeDto = 'read library' | 'add/search' | 'edit library' | 'delete' | 'settings' | 'system';

export interface RouteRiskDto {
  /** Hands out secrets (keys, passwords, backups) or controls the server (updates, scripts, restarts…). */
  sensitive: boolean;
  /** Removes or overwrites things: every DELETE, and any call to a route ending in `editor` or `bulk`. */
  destructive: boolean;
  purpose: RoutePurposeDto;
  /** One sentence: why it is sensitive (else why destructive, else that it is neither). */
  reason: string;
}

/** A call named for a grant: method and route (as the allowlist writes it); `serviceId` when the request covers several services. */
export interface NamedCall {
  method: string;
  route: string;
  serviceId?: string;
}
