/**
 * Usage of the proxy route, per proxy and hour: `GET /api/admin/v1/proxies/:id/usage` and
 * `GET /api/admin/v1/usage`, both with `?from=&to=` (ISO 8601; default: the current hour and the 23
 * before it; at most 90 days apart). Buckets are whole hours: `from` is rounded down to its hour, and
 * every hour that starts before `to` is listed, in order, with zeros where nothing was called.
 */
export interface UsageQuery {
  from?: string;
  to?: string;
}

/** What happened to a proxy's calls in one hour (or, in totals, over the period). */
export interface UsageCounts {
  /** Let through by the allowlist (or learning mode) and handed to the upstream, whatever it answered. */
  forwarded: number;
  /** Made with the proxy's key and refused: 403 (allowlist), 429 (rate limit), 400 (bad path). */
  refused: number;
  /** Of the forwarded calls, those answered 5xx: the upstream's own 5xx, or the gateway's 502 (unreachable) / 504 (time-out). */
  errors: number;
}

export interface UsageBucket extends UsageCounts {
  /** The hour's start (ISO 8601, UTC). */
  start: string;
}

/** Calls of one method on one route over the period. */
export interface RouteUsage {
  /** Lower case. */
  method: string;
  /** The resolved route as the catalog or allowlist writes it (`/api/v3/movie/{id}`), or the path when none matched. */
  route: string;
  count: number;
  /** The last call (ISO 8601). */
  lastSeen: string;
}

/** `GET /api/admin/v1/proxies/:id/usage`: hourly buckets and routes, most called first (at most 1000). */
export interface ProxyUsageResponse {
  buckets: UsageBucket[];
  routes: RouteUsage[];
}

export interface AppUsage extends UsageCounts {
  appId: string;
  name: string;
  slug: string;
}

export interface ServiceUsage extends UsageCounts {
  serviceId: string;
  name: string;
  type: string;
}

/**
 * `GET /api/admin/v1/usage`: every proxy's calls together, hour by hour, and the totals of each app and
 * each service that had calls in the period, most calls (forwarded + refused) first.
 */
export interface UsageOverviewResponse {
  buckets: UsageBucket[];
  apps: AppUsage[];
  services: ServiceUsage[];
}

/**
 * Calls refused with 401 (a wrong, inactive or missing key) for one app, or for slugs no app has
 * (`appId` null: "unknown app"), over a period: counted in memory on the proxy route, flushed hourly
 * rows in the background; never any part of a key.
 */
export interface UnauthorizedCalls {
  appId: string | null;
  appName: string | null;
  slug: string | null;
  count: number;
  lastSeen: string;
  /** The last caller's address (as `TRUST_PROXY` resolves it). */
  lastAddress: string | null;
  /** The last caller's User-Agent, cut to 200 characters. */
  lastUserAgent: string | null;
}

/** `GET /api/admin/v1/usage/unauthorized?from=&to=[&appId=]` (viewer): the period's 401s per app, most first. */
export interface UnauthorizedCallsResponse {
  from: string;
  to: string;
  items: UnauthorizedCalls[];
}
