import type { RouteRiskDto } from './risk';
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
  /**
   * What granting it opens, by the permissions lib's one rule (of `route`, else of `shape`, else of
   * `path`); null for the other-paths row. Sensitive and destructive rows ask before a grant.
   */
  risk: RouteRiskDto | null;
}

/** Server-side orders of `GET /api/admin/v1/warnings`. */
export type WarningSort = 'lastSeen' | 'firstSeen' | 'count' | 'app';

/**
 * `GET /api/admin/v1/warnings?proxyId=&appId=&status=&sort=&order=&q=&limit=&cursor=` → `Page<WarningDto>`:
 * `sort` (default `lastSeen`), `order` (`desc` default), `q` a case-insensitive part of the path, route
 * or shape (`%` and `_` plain); keyset paging (`nextCursor` carries the sort key and the id), 1–200 per page.
 */
export interface ListWarningsQuery {
  proxyId?: string;
  appId?: string;
  status?: WarningStatus;
  sort?: WarningSort;
  order?: 'asc' | 'desc';
  q?: string;
  limit?: number;
  cursor?: string;
}

/**
 * `POST /api/admin/v1/warnings/grant` and `…/warnings/dismiss` (editor): at most 100 ids. A grant
 * leaves out sensitive rows (and the other-paths rows, which cannot be granted) unless
 * `confirmSensitive` is true; each proxy's grants are one `warning-grant` revision.
 */
export interface BulkWarningsRequest {
  ids: string[];
  confirmSensitive?: boolean;
}

export interface BulkWarningsResponse {
  /** The warnings granted or dismissed. */
  done: string[];
  /** Left as they were, each with the reason ("sensitive: …", "already granted", "not found"). */
  skipped: { id: string; reason: string }[];
  /** One per proxy whose allowlist a grant changed (Undo restores each). */
  revisions: RevisionDto[];
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
