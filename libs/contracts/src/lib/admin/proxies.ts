import type { AllowlistMap } from './common';

/**
 * Proxies (`/api/admin/v1/proxies`, `…/apps/:appId/proxies`): an app's key to one service, its rate
 * limit, scrubbing and key rotation; what a new one starts with (`…/settings/proxy-defaults`).
 */

/** A proxy's rate limit: `perMinute` calls a minute on average, up to `burst` at once (429 beyond). */
export interface RateLimit {
  perMinute: number;
  burst: number;
}

export interface ProxyDto {
  id: string;
  appId: string;
  serviceId: string;
  active: boolean;
  /** While set and in the future, refused requests are forwarded and recorded as `learned` warnings. */
  learningUntil: string | null;
  /** Null: no limit. */
  rateLimit: RateLimit | null;
  /** Whether responses have the upstream's key and address replaced by the proxy's (false: raw passthrough). */
  scrub: boolean;
  /**
   * The key replaced by the last rotation, while its grace period runs (null otherwise): it is never
   * shown, only when it stops working and how much it is still used.
   */
  previousKey: PreviousKeyDto | null;
  createdAt: string;
  updatedAt: string;
}

/** A replaced key that still works (`POST …/rotate-key` with `graceMinutes`), and its use since. */
export interface PreviousKeyDto {
  /** When it stops working (ISO 8601). */
  validUntil: string;
  /** Calls made with it since the rotation, on every replica (written behind, within about a second). */
  uses: number;
  /** The last of those calls (ISO 8601), or null when none. */
  lastUsedAt: string | null;
}

/** A proxy with what a client needs to use it. */
export interface ProxyConnectionDto extends ProxyDto {
  key: string;
  /** `PUBLIC_URL` + `/proxy/{appSlug}`: the base URL a client puts where it would put the upstream's. */
  proxyUrl: string;
}

/** `GET /api/admin/v1/proxies/:id`: connection details; `key` is left out for viewers (a secret). */
export type ProxyDetailsDto = Omit<ProxyConnectionDto, 'key'> & { key?: string };

/** `GET /api/admin/v1/proxies/:id/key`: reveals the proxy key (editors and owners; viewers get 403). */
export interface ProxyKeyResponse {
  key: string;
}

export interface CreateProxyRequest {
  serviceId: string;
}

export interface UpdateProxyRequest {
  active: boolean;
}

/** The longest grace period of a rotation: 7 days, in minutes. */
export const MAX_GRACE_MINUTES = 10_080;

/** `POST /api/admin/v1/proxies/:id/rotate-key`. */
export interface RotateKeyRequest {
  /**
   * 0–10080 (7 days), default 0: how long the replaced key keeps working. 0 stops it at once, as does
   * any earlier replaced key still in its grace period (a proxy has at most one previous key).
   */
  graceMinutes?: number;
}

export interface RotateKeyResponse {
  key: string;
  /** When the replaced key stops working (ISO 8601); null when it stopped at once. */
  previousKeyValidUntil: string | null;
}

export interface ProxyConfigRequest {
  overrides: AllowlistMap;
  active: boolean;
  /** Absent: unchanged; null: no limit. */
  rateLimit?: RateLimit | null;
  /** Absent: unchanged. */
  scrub?: boolean;
}

/** What a new proxy starts with (`GET/PUT /api/admin/v1/settings/proxy-defaults`). */
export interface ProxyDefaults {
  rateLimit: RateLimit | null;
  scrub: boolean;
}
