import type { AllowlistMap, Grant } from './common';

/**
 * Templates (`/api/admin/v1/templates`): allowlists shared by apps, saved from an app or synced from
 * the template repository (`…/settings/template-repository`), whose widenings wait as pending changes.
 */

/** A template: a name and one override-form block per service type (`radarr`, `sonarr`, …). */
export interface TemplateDto {
  id: string;
  name: string;
  /** `repository`: synced from the template repository; `local`: saved by an admin, never overwritten by a sync. */
  source: 'repository' | 'local';
  /** Gone from the repository but kept because apps still use it. */
  removed: boolean;
  blocks: Record<string, AllowlistMap>;
  /** Granted (path, method) pairs per service type. */
  grantCounts: Record<string, number>;
  /** Apps that use it. */
  appCount: number;
  createdAt: string;
  updatedAt: string;
}

/** `GET/PUT /api/admin/v1/settings/template-repository`. */
export interface TemplateRepositorySettings {
  /** An `https://`/`http://` git repository, or an absolute local directory. */
  url: string;
  /** Branch, tag or commit (git only). */
  ref: string;
  /** The folder inside the repository that holds `<serviceType>/<template>.json` ('' for the root). */
  path: string;
  /** Minutes between automatic syncs; 0 disables them. */
  intervalMinutes: number;
}

export interface TemplateRepositoryStatus extends TemplateRepositorySettings {
  lastSync: { at: string; ok: boolean; message: string } | null;
}

/** A file of the repository that was skipped, and why. */
export interface TemplateProblem {
  file: string;
  reason: string;
}

export interface TemplateBlockChange {
  serviceType: string;
  added: Grant[];
  removed: Grant[];
}

/** What a template sync did (or, for a dry run, would do). */
export interface TemplateSyncReport {
  dryRun: boolean;
  /** The commit synced (git), or null for a local directory. */
  commit: string | null;
  added: string[];
  changed: { name: string; blocks: TemplateBlockChange[] }[];
  /** Gone from the repository and not used by any app: deleted. */
  deleted: string[];
  /** Gone from the repository but used by apps: kept, marked removed. */
  keptRemoved: string[];
  unchanged: number;
  problems: TemplateProblem[];
  /** Proxies whose effective allowlist changed (each gets a `template-sync` revision). */
  proxies: { proxyId: string; appId: string; appName: string; added: Grant[]; removed: Grant[] }[];
  /**
   * Templates some app uses whose repository version grants more: the grants they would add are held
   * for an editor (`GET /api/admin/v1/templates/pending`), not applied; their removals are applied (in
   * `changed`). Listed when new or different from what was held before.
   */
  pending: { name: string; blocks: TemplateBlockChange[] }[];
}

/**
 * `GET /api/admin/v1/templates/pending`: a widening of a template some app uses, synced from the
 * repository and held until an editor applies (`POST …/templates/:id/pending/apply`) or dismisses it
 * (`POST …/templates/:id/pending/dismiss`). One per template; a newer sync replaces it.
 */
export interface PendingTemplateChangeDto {
  templateId: string;
  templateName: string;
  /**
   * Per service type: `added`, the grants held (what applying grants); `removed`, what the same sync
   * took away, already applied.
   */
  blocks: TemplateBlockChange[];
  /** The commit it came from (git), or null for a local directory. */
  commit: string | null;
  detectedAt: string;
  /** The apps that use the template. */
  apps: { appId: string; appName: string }[];
  /** The proxies whose effective allowlist applying it would widen, with what each would gain. */
  proxies: { proxyId: string; appId: string; appName: string; serviceType: string; added: Grant[] }[];
}

/** `POST /api/admin/v1/templates/:id/pending/apply` → 200: the template's new blocks are stored. */
export interface AppliedTemplateChangeDto {
  template: TemplateDto;
  /** Proxies whose effective allowlist changed (each gets a `template-sync` revision). */
  proxies: { proxyId: string; appId: string; appName: string; added: Grant[]; removed: Grant[] }[];
}

export interface SaveAsTemplateRequest {
  name: string;
}
