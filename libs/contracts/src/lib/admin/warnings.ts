import type { KnownCaller } from '../known-clients';
import type { Grant } from './common';
import type { RevisionDto } from './revisions';

/**
 * Warnings (`/api/admin/v1/warnings`): calls a proxy refused, rate-limited or let through while
 * learning, counted per route; a refused call can be granted.
 */

/** `rate-limited`: calls refused by the proxy's rate limit (one row per proxy and method; not grantable). */
export type WarningStatus = 'open' | 'granted' | 'dismissed' | 'learned' | 'rate-limited';

export interface WarningDto {
  id: string;
  proxyId: string;
  appId: string;
  /** Lower case, as in allowlists. */
  method: string;
  /**
   * The canonical path of the latest refused request: the warning's sample (cut to 512 characters,
   * ending with `…`, when longer).
   */
  path: string;
  /** The route it resolved to, or null when no known route matches. */
  route: string | null;
  /**
   * For a path no known route matches: the bounded shape its warnings are counted under (at most six
   * segments, ids such as numbers, UUIDs and tokens folded to `{id}`, literals lower case; a last `…`
   * stands for deeper segments). Null for a route's warning, a rate-limit row and the other-paths row.
   */
  shape: string | null;
  /**
   * The proxy's "other paths" row (method `*`): calls refused past its 200 distinct warnings, counted
   * together, with the latest as `path`. It cannot be granted.
   */
  otherPaths: boolean;
  count: number;
  firstSeen: string;
  lastSeen: string;
  status: WarningStatus;
  /**
   * Known clients that make this call (`GET /api/admin/v1/known-clients`); empty when none does. The
   * server sets it on every warning it answers (optional only so that older literals still type-check).
   */
  knownCallers: KnownCaller[];
}

/**
 * `POST /api/admin/v1/warnings/:id/grant` (optional body). For a path no known route matches, `path`
 * (the default) grants exactly the sample path, `shape` the warning's shape (its `{id}` segments as
 * parameters). A route's warning grants its route either way.
 */
export interface WarningGrantRequest {
  scope?: 'path' | 'shape';
}

export interface WarningGrantResponse {
  warning: WarningDto;
  revision: RevisionDto;
}

export interface LearnedGrantResponse {
  /** Null when there was nothing learned to grant. */
  revision: RevisionDto | null;
  granted: Grant[];
}
