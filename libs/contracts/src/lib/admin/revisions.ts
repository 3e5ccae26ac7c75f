import type { AllowlistMap, Grant } from './common';

/** Revisions (`/api/admin/v1/proxies/:id/revisions`): each change of a proxy's allowlist, restorable. */

/**
 * `import`: set by a declarative configuration document (`POST /api/admin/v1/config/import`, `CONFIG_FILE`);
 * `client-fit`: a known client's fit applied (`POST /api/admin/v1/proxies/:id/fit/apply`, or a connect);
 * `created`: the proxy's first revision when it was made by hand; `undo`: a revision's grants taken back
 * (`POST /api/admin/v1/proxies/:id/revisions/:revisionId/undo`).
 */
export type RevisionKind =
  | 'manual'
  | 'warning-grant'
  | 'template-sync'
  | 'restore'
  | 'import'
  | 'client-fit'
  | 'created'
  | 'undo';

/** What a revision changed in the effective allowlist and the active state. */
export interface RevisionSummary {
  /** One line for lists: "Configuration saved: 2 grants added, 1 removed". */
  text: string;
  added: Grant[];
  removed: Grant[];
  /** Present when the active state changed. */
  active?: { from: boolean; to: boolean };
}

export interface RevisionDto {
  id: string;
  proxyId: string;
  kind: RevisionKind;
  overrides: AllowlistMap;
  active: boolean;
  /** The admin's username, or `system` (template syncs, learning deadlines). */
  author: string;
  createdAt: string;
  summary: RevisionSummary;
  /** The revision a `restore` revision restored. */
  restoredFrom: string | null;
}

/** A revision against the proxy's current configuration: what restoring it would change. */
export interface RevisionDiffResponse {
  revision: RevisionDto;
  current: { overrides: AllowlistMap; active: boolean; effective: AllowlistMap };
  /** Effective allowlist if restored (over the current template). */
  restored: AllowlistMap;
  added: Grant[];
  removed: Grant[];
}

/**
 * `POST /api/admin/v1/proxies/:id/revisions/:revisionId/undo` (editor) → 201: a new `undo` revision that
 * removes exactly the grants `revisionId` added and gives back those it revoked, leaving every later
 * change alone; 409 when any of them changed since (already revoked, granted again, or its path's
 * override rewritten), and nothing is written.
 */
export interface UndoRevisionResponse {
  revision: RevisionDto;
}
