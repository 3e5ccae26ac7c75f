import type { KnownCaller } from './known-clients';

/** A page of a list: pass `nextCursor` back as `?cursor=` for the next page (null: no more). */
export interface Page<T> {
  items: T[];
  nextCursor: string | null;
}

/** Stored override form: path → lower-case methods, e.g. `{"/api/v3/movie/{id}": ["get", "put"]}`. */
export type AllowlistMap = Record<string, string[]>;

export interface ServiceDto {
  id: string;
  /** The upstream's instance name, discovered. */
  name: string;
  /** The upstream's app name, lower case (`sonarr`), discovered. */
  type: string;
  baseUrl: string;
  /** API versions served, current first (`["v5", "v3"]`). */
  apiVersions: string[];
  upstreamVersion: string;
  createdAt: string;
  updatedAt: string;
}

export interface CreateServiceRequest {
  baseUrl: string;
  apiKey: string;
}

export type UpdateServiceRequest = Partial<CreateServiceRequest>;

export interface AppDto {
  id: string;
  name: string;
  slug: string;
  templateId: string | null;
  templateName: string | null;
  active: boolean;
  proxyCount: number;
  createdAt: string;
  updatedAt: string;
}

export type AppState = 'active' | 'inactive';

/**
 * `GET /api/admin/v1/apps`: apps sorted by name, then id, answered as a `Page<AppDto>` whose
 * `proxyCount` and `templateName` are those of the page's apps.
 */
export interface ListAppsQuery {
  /** 1–200, default 50. */
  limit?: number;
  /** The `nextCursor` of the previous page. */
  cursor?: string;
  /** A case-insensitive part of the name or slug (`%` and `_` are plain characters). */
  q?: string;
  /** A template's id, or `none` for apps without a template. */
  templateId?: string;
  state?: AppState;
}

export interface CreateAppRequest {
  name: string;
  slug: string;
  templateId: string | null;
  active: boolean;
}

export type UpdateAppRequest = Partial<CreateAppRequest>;

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

export interface AllowlistResponse {
  template: AllowlistMap;
  overrides: AllowlistMap;
  effective: AllowlistMap;
}

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

export interface OpenApiDocumentDto {
  serviceType: string;
  apiVersion: string;
  source: 'upstream' | 'source' | 'upload';
  routes: number;
  updatedAt: string;
}

/** One grant: a lower-case method on an API path. */
export interface Grant {
  path: string;
  method: string;
}

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

/** One method of one path in a proxy's permission catalog. */
export interface EndpointMethodDto {
  method: string;
  /** The app's template grants it. */
  template: boolean;
  /** The proxy's override for the path grants it (true) or leaves it out (false); null: no override, inherited. */
  override: boolean | null;
  /** The result: what the proxy allows. */
  effective: boolean;
  /** The operation's summary from the OpenAPI description. */
  summary?: string;
}

export interface EndpointDto {
  path: string;
  tags: string[];
  /** False for allowlist paths that the service's catalog does not know. */
  inCatalog: boolean;
  /** Known to expose secrets or to control the server (`/api/v3/config/host`, `/api/v3/system/backup`, …). */
  sensitive: boolean;
  /** The override's method list for the path; null when the path inherits the template. */
  override: string[] | null;
  methods: EndpointMethodDto[];
}

/** `GET /api/admin/v1/proxies/:id/endpoints?search=&tag=`. */
export interface EndpointsResponse {
  serviceType: string;
  templateId: string | null;
  /** Every tag of the catalog (for a filter), sorted. */
  tags: string[];
  items: EndpointDto[];
}

/**
 * `import`: set by a declarative configuration document (`POST /api/admin/v1/config/import`, `CONFIG_FILE`);
 * `client-fit`: a known client's fit applied (`POST /api/admin/v1/proxies/:id/fit/apply`).
 */
export type RevisionKind = 'manual' | 'warning-grant' | 'template-sync' | 'restore' | 'import' | 'client-fit';

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

export interface StartLearningRequest {
  /** ISO 8601 time, in the future and at most 7 days ahead. */
  until: string;
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

/** What a recent change is about (the audit trail's filter). */
export const CHANGE_OBJECT_TYPES = [
  'service',
  'app',
  'proxy',
  'template',
  'warning',
  'session',
  'settings',
  'openapi',
  'config',
  'account',
  'token',
] as const;

export type ChangeObjectType = (typeof CHANGE_OBJECT_TYPES)[number];

/** One entry of the audit trail (`GET /api/admin/v1/changes`). */
export interface ChangeDto {
  id: string;
  at: string;
  /** The admin's username, or `system`. */
  actor: string;
  /** `service.created`, `proxy.key-rotated`, `proxy.config-saved`, `session.signed-in`, … */
  action: string;
  objectType: ChangeObjectType;
  objectId: string | null;
  /** The object's name when it was changed (app name, service name, template name, username). */
  objectName: string | null;
  /** For links: the app a proxy belongs to. */
  appId: string | null;
  summary: string;
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

/**
 * `POST /api/admin/v1/apps/:id/clone` → 201 `AppDto`: a new app with the source's template and active
 * state, and a copy of each of its proxies (overrides, active state, rate limit, scrubbing) with a new key.
 */
export interface CloneAppRequest {
  name: string;
  slug: string;
}

/** `GET /api/admin/v1/services/:id/ping`: whether the upstream answers its `/ping` now. */
export interface ServiceReachabilityDto {
  reachable: boolean;
  latencyMs: number | null;
  checkedAt: string;
  /** Why it is not reachable (connection refused, time-out, HTTP status). */
  error: string | null;
}
