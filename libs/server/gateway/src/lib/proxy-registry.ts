import type { RateLimit } from '@arrbiter/contracts';
import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppsService } from '@arrbiter/server/apps';
import { Clock } from '@arrbiter/server/config';
import {
  AllowlistMap,
  CatalogService,
  compileAllowlist,
  CompiledAllowlist,
  effectiveAllowlist,
  RouteMatcher,
} from '@arrbiter/server/catalog';
import { keyDigest, SecretBox } from '@arrbiter/server/crypto';
import { Change, ChangeBus } from '@arrbiter/server/database';
import { ProxiesService, type ProxyHotPathRow, rateLimitOf } from '@arrbiter/server/proxies';
import { SERVICE_KEY_PURPOSE, ServicesService } from '@arrbiter/server/services';
import { TemplatesService } from '@arrbiter/server/templates';
import type { ProxyMeter } from '@arrbiter/server/metrics';
import type { UsageSlot } from '@arrbiter/server/usage';

/** An upstream, ready to forward to. */
export interface ServiceState {
  id: string;
  type: string;
  /** The service's name (its `instanceName`), as metrics label it. */
  name: string;
  /** `http://host:port`. */
  origin: string;
  /** The URL base (`/radarr`), or ''. */
  basePath: string;
  upstreamKey: string;
  catalog: RouteMatcher;
  /** Changes whenever the address or key changes (forwarders are rebuilt). */
  revision: string;
}

export interface ProxyState {
  id: string;
  appId: string;
  appSlug: string;
  keyDigest: string;
  /** The key a rotation replaced, while its grace period runs (null: none). */
  previousKey: PreviousKeyState | null;
  active: boolean;
  /** Learning mode's deadline in epoch milliseconds; 0 when not learning. */
  learningUntil: number;
  service: ServiceState;
  allowlist: CompiledAllowlist;
  /** Allowlist paths the catalog does not know, as routes of their own (undefined when none). */
  extraRoutes?: RouteMatcher;
  /** Null: no limit. */
  rateLimit: RateLimit | null;
  /** Whether responses have the upstream's key and address replaced. */
  scrub: boolean;
  /**
   * What the access line's features keep of this proxy between calls, set by them on its first call
   * (`ProxyMetering`, `AccessLog`): found with the state the call already holds, not looked up.
   */
  meter: ProxyMeter | undefined;
  usage: UsageSlot | undefined;
}

/** A previous key's digest and when it stops working (epoch milliseconds; checked on every call made with it). */
export interface PreviousKeyState {
  digest: string;
  validUntil: number;
}

export interface AppState {
  id: string;
  slug: string;
  active: boolean;
  templateId: string | null;
  /** Active or not, by key digest. */
  proxies: Map<string, ProxyState>;
  /** Proxies by the digest of their previous key (looked up only when a key matches no current one). */
  previousKeys: Map<string, ProxyState>;
}

interface Snapshot {
  /** By slug. */
  apps: Map<string, AppState>;
  appsById: Map<string, AppState>;
  proxiesById: Map<string, ProxyState>;
  services: Map<string, ServiceState>;
  upstreamKeyDigests: Set<string>;
  /** Template blocks by template id, then service type. */
  templates: Map<string, Record<string, AllowlistMap>>;
}

const EMPTY: Snapshot = {
  apps: new Map(),
  appsById: new Map(),
  proxiesById: new Map(),
  services: new Map(),
  upstreamKeyDigests: new Set(),
  templates: new Map(),
};

/**
 * The hot path's state, in memory: apps by slug, proxies by key digest, compiled allowlists and the
 * services' route tables — never read from the database by a request. A change to one proxy or app
 * reloads just that object; a change to services or catalogs rebuilds everything. Updates run one at
 * a time and the admin write awaits its own, so the next request sees it.
 */
@Injectable()
export class ProxyRegistry implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ProxyRegistry.name);
  private snapshot: Snapshot = EMPTY;
  /**
   * Compiled allowlists by service and effective allowlist: proxies that share grants (the same
   * template, the same overrides) share one compiled form. Cleared on every full rebuild.
   */
  private compiled = new Map<string, Pick<ProxyState, 'allowlist' | 'extraRoutes'>>();
  private queue: Promise<void> = Promise.resolve();
  private unsubscribe?: () => void;
  /** Whether a full load has succeeded once (readiness). */
  private loadedOnce = false;

  constructor(
    private readonly appRows: AppsService,
    private readonly proxyRows: ProxiesService,
    private readonly services: ServicesService,
    private readonly catalog: CatalogService,
    private readonly templates: TemplatesService,
    private readonly secrets: SecretBox,
    private readonly clock: Clock,
    changes: ChangeBus,
  ) {
    this.unsubscribe = changes.subscribe((change) => this.apply(change));
  }

  async onApplicationBootstrap(): Promise<void> {
    await this.reload();
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  app(slug: string): AppState | undefined {
    return this.snapshot.apps.get(slug);
  }

  /** A proxy by id, active or not (the admin views that read the proxy route's memory). */
  proxy(id: string): ProxyState | undefined {
    return this.snapshot.proxiesById.get(id);
  }

  get loaded(): boolean {
    return this.loadedOnce;
  }

  isUpstreamKey(digest: string): boolean {
    return this.snapshot.upstreamKeyDigests.has(digest);
  }

  /** Rebuilds the whole state. */
  reload(): Promise<void> {
    return this.enqueue(async () => {
      this.snapshot = await this.build();
      this.loadedOnce = true;
    });
  }

  private apply(change: Change): Promise<void> | undefined {
    if (change.topic === 'settings' || change.topic === 'recent-calls') return undefined;
    if (change.id && change.topic === 'proxies') return this.enqueue(() => this.updateProxy(change.id as string));
    if (change.id && change.topic === 'apps') return this.enqueue(() => this.updateApp(change.id as string));
    return this.reload();
  }

  /** Runs state changes one after another; a failed one is logged and leaves the state as it was. */
  private enqueue(work: () => Promise<void>): Promise<void> {
    const next = this.queue.then(work).catch((error: unknown) => {
      this.logger.error(`Could not update the proxy state: ${(error as Error).message}`);
    });
    this.queue = next;
    return next;
  }

  private async updateProxy(id: string): Promise<void> {
    const [row] = await this.proxyRows.hotPathRows({ id });
    const snapshot = this.snapshot;
    const old = snapshot.proxiesById.get(id);
    if (old) {
      const oldApp = snapshot.appsById.get(old.appId);
      oldApp?.proxies.delete(old.keyDigest);
      if (old.previousKey) oldApp?.previousKeys.delete(old.previousKey.digest);
      snapshot.proxiesById.delete(id);
    }
    const app = row && snapshot.appsById.get(row.appId);
    if (row && app) this.addProxy(snapshot, app, row);
  }

  private async updateApp(id: string): Promise<void> {
    const [[row], proxies] = await Promise.all([
      this.appRows.hotPathRows({ id }),
      this.proxyRows.hotPathRows({ appId: id }),
    ]);
    const snapshot = this.snapshot;
    const old = snapshot.appsById.get(id);
    if (old) {
      for (const proxy of old.proxies.values()) snapshot.proxiesById.delete(proxy.id);
      snapshot.apps.delete(old.slug);
      snapshot.appsById.delete(id);
    }
    if (!row) return;
    const app: AppState = {
      id: row.id,
      slug: row.slug,
      active: row.active,
      templateId: row.templateId,
      proxies: new Map(),
      previousKeys: new Map(),
    };
    for (const proxy of proxies) this.addProxy(snapshot, app, proxy);
    snapshot.apps.set(app.slug, app);
    snapshot.appsById.set(app.id, app);
  }

  private addProxy(snapshot: Snapshot, app: AppState, proxy: ProxyHotPathRow): void {
    const service = snapshot.services.get(proxy.serviceId);
    if (!service) return;
    const previousUntil = proxy.previousKeyValidUntil?.getTime() ?? 0;
    const state: ProxyState = {
      id: proxy.id,
      appId: app.id,
      appSlug: app.slug,
      keyDigest: proxy.keyDigest,
      // One whose grace period has already ended is left out; one that ends later is refused by the
      // time check of the call (no reload is needed when it ends).
      previousKey:
        proxy.previousKeyDigest !== null && previousUntil > this.clock.now()
          ? { digest: proxy.previousKeyDigest, validUntil: previousUntil }
          : null,
      active: proxy.active,
      learningUntil: proxy.learningUntil?.getTime() ?? 0,
      rateLimit: rateLimitOf(proxy),
      scrub: proxy.scrub,
      service,
      meter: undefined,
      usage: undefined,
      ...this.compile(
        service,
        app.templateId,
        (app.templateId && snapshot.templates.get(app.templateId)?.[service.type]) || {},
        proxy.overrides,
      ),
    };
    app.proxies.set(proxy.keyDigest, state);
    if (state.previousKey) app.previousKeys.set(state.previousKey.digest, state);
    snapshot.proxiesById.set(proxy.id, state);
  }

  private compile(
    service: ServiceState,
    templateId: string | null,
    template: AllowlistMap,
    overrides: AllowlistMap,
  ): Pick<ProxyState, 'allowlist' | 'extraRoutes'> {
    // A template's content is fixed between full rebuilds (a template change rebuilds everything).
    const key = `${service.id}|${templateId ?? ''}|${JSON.stringify(overrides)}`;
    let compiled = this.compiled.get(key);
    if (!compiled) {
      // Saved configurations accumulate between full rebuilds: keep the cache bounded.
      if (this.compiled.size >= 100_000) this.compiled.clear();
      compiled = compileAllowlist(service.catalog, effectiveAllowlist(template, overrides));
      this.compiled.set(key, compiled);
    }
    return compiled;
  }

  private async build(): Promise<Snapshot> {
    this.compiled = new Map();
    const started = performance.now();
    await this.catalog.ready();
    // Only what the hot path needs: no key ciphertexts, no timestamps to parse for every row.
    const [apps, proxies, services, templates] = await Promise.all([
      this.appRows.hotPathRows(),
      this.proxyRows.hotPathRows(),
      this.services.all(),
      this.templates.allBlocks(),
    ]);
    const matchers = new Map<string, RouteMatcher>();
    const serviceStates = new Map<string, ServiceState>();
    const upstreamKeyDigests = new Set<string>();
    for (const service of services) {
      const catalogKey = `${service.type}|${service.apiVersions.join(',')}`;
      let matcher = matchers.get(catalogKey);
      if (!matcher)
        matchers.set(
          catalogKey,
          (matcher = new RouteMatcher(this.catalog.routesFor(service.type, service.apiVersions))),
        );
      const url = new URL(service.baseUrl);
      const upstreamKey = this.secrets.decrypt(service.apiKeyCiphertext, SERVICE_KEY_PURPOSE);
      upstreamKeyDigests.add(keyDigest(upstreamKey));
      serviceStates.set(service.id, {
        id: service.id,
        type: service.type,
        name: service.name,
        origin: url.origin,
        basePath: url.pathname.replace(/\/+$/, ''),
        upstreamKey,
        catalog: matcher,
        revision: `${service.baseUrl}|${service.apiKeyCiphertext}`,
      });
    }
    const snapshot: Snapshot = {
      apps: new Map(),
      appsById: new Map(),
      proxiesById: new Map(),
      services: serviceStates,
      upstreamKeyDigests,
      templates,
    };
    for (const app of apps) {
      const state: AppState = {
        id: app.id,
        slug: app.slug,
        active: app.active,
        templateId: app.templateId,
        proxies: new Map(),
        previousKeys: new Map(),
      };
      snapshot.apps.set(app.slug, state);
      snapshot.appsById.set(app.id, state);
    }
    for (const proxy of proxies) {
      const app = snapshot.appsById.get(proxy.appId);
      if (app) this.addProxy(snapshot, app, proxy);
    }
    this.logger.log(
      `Loaded ${apps.length} apps, ${proxies.length} proxies and ${services.length} services in ${Math.round(performance.now() - started)} ms`,
    );
    return snapshot;
  }
}
