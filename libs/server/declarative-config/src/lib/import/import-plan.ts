import type { AllowlistMap, ConfigDocument, ConfigImportReport } from '@arrbiter/contracts';
import type { AppRow } from '@arrbiter/server/apps';
import type { ProxyRow } from '@arrbiter/server/proxies';
import type { ServiceRow } from '@arrbiter/server/services';
import type { TemplateRow } from '@arrbiter/server/templates';

export interface ImportOptions {
  dryRun: boolean;
  /** Who imports: an admin's username, or `system` (`CONFIG_FILE`, the command line). */
  actor: string;
  /** The operator's own file (`CONFIG_FILE`, `main.js import`): a local template directory may be anywhere. */
  operator: boolean;
  /** Where the document came from, for recent changes ("the admin API", "CONFIG_FILE /etc/arrbiter.yaml"). */
  source: string;
}

/** A template's blocks: service type → allowlist. */
export type Blocks = Record<string, AllowlistMap>;

/** The instance as the import found it, read once at the start of the transaction. */
export interface StoredObjects {
  readonly services: readonly ServiceRow[];
  readonly templates: readonly TemplateRow[];
  readonly apps: readonly AppRow[];
  readonly proxies: readonly ProxyRow[];
}

/**
 * What every planner reads and adds to. Planners run in a fixed order (settings, services, templates,
 * apps, proxies, then the template and service prunes); each adds its entries to `report` and its
 * problems (each with its place in the document) to `problems`, and writes nothing.
 */
export interface PlanContext {
  readonly document: ConfigDocument;
  readonly options: ImportOptions;
  /** `document.prune === true`: what a listed collection leaves out is deleted. */
  readonly prune: boolean;
  readonly stored: StoredObjects;
  readonly report: ConfigImportReport;
  readonly problems: string[];
}

/** What the writers share while applying a plan, in the caller's transaction. */
export interface WriteContext {
  readonly actor: string;
  readonly operator: boolean;
  /** The services written (created or with a new key), whose catalogs to fetch once committed. */
  readonly written: { service: ServiceRow; apiKey: string }[];
  /** Base URL → id of each service created by this import. */
  readonly serviceIds: Map<string, string>;
  /** Template name → id, every template once they are written. */
  readonly templateIds: Map<string, string>;
  /** Slug → id of each app created or updated by this import. */
  readonly appIds: Map<string, string>;
}

export function emptyReport(dryRun: boolean, prune: boolean): ConfigImportReport {
  return {
    dryRun,
    changed: false,
    prune,
    settings: [],
    services: [],
    templates: [],
    apps: [],
    proxies: [],
    unchanged: { settings: 0, services: 0, templates: 0, apps: 0, proxies: 0 },
  };
}

export const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);
