import type { AllowlistMap, Grant } from './admin/common';
import type { ProxyDefaults, RateLimit } from './admin/proxies';
import type { TemplateRepositorySettings } from './admin/templates';
import type { NotificationEventType, NotificationFormat } from './notifications';

/** The version of the declarative configuration document this server reads and writes. */
export const CONFIG_DOCUMENT_VERSION = 1;

/**
 * The declarative configuration document (`GET /api/admin/v1/config/export`,
 * `POST /api/admin/v1/config/import`, `CONFIG_FILE`, `main.js export|import`). Objects are named by
 * natural keys, never by ids, so that a document moves between instances: a service by its base URL
 * (or its name), an app by its slug, a proxy by its app and its service, a template by its name.
 *
 * On import, a field left out keeps an existing object's value and takes the default for a new one;
 * a collection left out is not touched. Objects the document does not list are deleted only with
 * `prune: true`, and only in the collections the document lists.
 */
export interface ConfigDocument {
  version: typeof CONFIG_DOCUMENT_VERSION;
  /** Delete the services, templates, apps and proxies that the listed collections leave out (default false). */
  prune?: boolean;
  settings?: ConfigSettings;
  services?: ConfigService[];
  templates?: ConfigTemplate[];
  apps?: ConfigApp[];
}

/**
 * Server-wide settings. Each key is one section, read and applied on its own; a section left out is not
 * touched.
 */
export interface ConfigSettings {
  proxyDefaults?: ProxyDefaults;
  templateRepository?: TemplateRepositorySettings;
  notifications?: ConfigNotifications;
}

/**
 * The notification webhooks, as a whole: an import makes the list this one (webhooks it leaves out are
 * deleted). A webhook is matched to a stored one by its URL, so that it keeps its delivery history.
 */
export interface ConfigNotifications {
  webhooks: ConfigWebhook[];
}

export interface ConfigWebhook {
  /**
   * The whole URL with `?secrets=true` (or a `${ENV}` / `${file:…}` reference in `CONFIG_FILE`);
   * masked otherwise (`https://discord.com/api/webhooks/123/…`), which on import keeps the stored
   * webhook it masks and cannot create one.
   */
  url: string;
  format: NotificationFormat;
  events: NotificationEventType[];
  enabled: boolean;
}

export interface ConfigService {
  /** The natural key: the base URL, URL base included. */
  baseUrl: string;
  /** Discovered from the upstream; in a document, a name proxies may refer to the service by. */
  name?: string;
  /** Discovered from the upstream; checked against it when given. */
  type?: string;
  /** The upstream's own key: exported with `?secrets=true` only; required to register a new service. */
  apiKey?: string;
}

export interface ConfigTemplate {
  name: string;
  /**
   * `local` (default): saved by an admin, owned by the document. `repository`: synced from the
   * template repository and written only when the instance does not have it (a restore before the first
   * sync); a sync owns it afterwards.
   */
  source?: 'local' | 'repository';
  /** Service type → override-form block. */
  blocks: Record<string, AllowlistMap>;
}

export interface ConfigApp {
  /** The natural key. */
  slug: string;
  name: string;
  /** A template's name, or null for none (default null). */
  template?: string | null;
  /**
   * A known client's id (`overseerr`): the app is connected as that client. Resolved once, when a proxy
   * is created without `overrides`: they become the client's calls to its service type that are not
   * sensitive (as `POST /api/admin/v1/known-clients/:id/connect` grants them). Exported with the
   * resolved overrides; later imports keep a proxy's stored overrides.
   */
  client?: string;
  /** Default true. */
  active?: boolean;
  /** Left out: the app's proxies are not touched. */
  proxies?: ConfigProxy[];
}

export interface ConfigProxy {
  /** The service: its base URL, or its name when no other service has it. */
  service: string;
  /** Default true. */
  active?: boolean;
  /** Default `{}` (the template's grants only). */
  overrides?: AllowlistMap;
  /** Null: no limit. Default: the proxy defaults. */
  rateLimit?: RateLimit | null;
  /** Default: the proxy defaults. */
  scrub?: boolean;
  /** The proxy key (32 lower-case hex characters): exported with `?secrets=true` only; default: a new key. */
  key?: string;
}

/** What an import does (or, for a dry run, would do) to one object. */
export type ConfigChangeKind = 'created' | 'updated' | 'deleted';

export interface ConfigObjectChange {
  kind: ConfigChangeKind;
  /** Its natural key: a base URL, a template name, an app slug, `slug → service`, a settings section. */
  name: string;
  /** What changes, one short phrase each ("name", "template", "API key replaced", …). */
  changes: string[];
}

export interface ConfigProxyChange extends ConfigObjectChange {
  app: string;
  service: string;
  /** Effective grants the proxy gains and loses (created: every grant it starts with). */
  added: Grant[];
  removed: Grant[];
}

/** `POST /api/admin/v1/config/import?dryRun=`: what the document changes, by collection. */
export interface ConfigImportReport {
  dryRun: boolean;
  /** Whether anything changes; false for a document that matches the instance. */
  changed: boolean;
  prune: boolean;
  settings: ConfigObjectChange[];
  services: ConfigObjectChange[];
  templates: ConfigObjectChange[];
  apps: ConfigObjectChange[];
  proxies: ConfigProxyChange[];
  /** Objects the document names that already match it. */
  unchanged: { settings: number; services: number; templates: number; apps: number; proxies: number };
}
