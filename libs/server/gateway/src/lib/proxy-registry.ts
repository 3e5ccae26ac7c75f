import { Injectable, Logger, OnApplicationBootstrap, OnModuleDestroy } from '@nestjs/common';
import { AppEntity } from '@arrbiter/server/apps';
import {
  CatalogService,
  CompiledAllowlist,
  effectiveAllowlist,
  RouteMatcher,
  routeShape,
} from '@arrbiter/server/catalog';
import { keyDigest, SecretBox } from '@arrbiter/server/crypto';
import { ChangeBus } from '@arrbiter/server/database';
import { ProxyEntity } from '@arrbiter/server/proxies';
import { SERVICE_KEY_PURPOSE, ServiceEntity } from '@arrbiter/server/services';
import { DataSource } from 'typeorm';

/** An upstream, ready to forward to. */
export interface ServiceState {
  id: string;
  type: string;
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
  active: boolean;
  service: ServiceState;
  allowlist: CompiledAllowlist;
  /** Allowlist paths the catalog does not know, as routes of their own (undefined when none). */
  extraRoutes?: RouteMatcher;
}

export interface AppState {
  id: string;
  slug: string;
  active: boolean;
  /** Active or not, by key digest. */
  proxies: Map<string, ProxyState>;
}

interface Snapshot {
  apps: Map<string, AppState>;
  services: Map<string, ServiceState>;
  upstreamKeyDigests: Set<string>;
}

/**
 * The hot path's state, in memory: apps by slug, proxies by key digest, compiled allowlists and the
 * services' route tables. Rebuilt from the database on every change (the change is awaited by the
 * admin write, so the next request sees it) — never read from the database by a request.
 */
@Injectable()
export class ProxyRegistry implements OnApplicationBootstrap, OnModuleDestroy {
  private readonly logger = new Logger(ProxyRegistry.name);
  private snapshot: Snapshot = { apps: new Map(), services: new Map(), upstreamKeyDigests: new Set() };
  private reloading: Promise<void> | undefined;
  private again = false;
  private unsubscribe?: () => void;

  constructor(
    private readonly dataSource: DataSource,
    private readonly catalog: CatalogService,
    private readonly secrets: SecretBox,
    changes: ChangeBus,
  ) {
    this.unsubscribe = changes.subscribe(() => this.reload());
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

  isUpstreamKey(digest: string): boolean {
    return this.snapshot.upstreamKeyDigests.has(digest);
  }

  get services(): ReadonlyMap<string, ServiceState> {
    return this.snapshot.services;
  }

  /** Rebuilds the state; overlapping calls coalesce into one more rebuild after the running one. */
  reload(): Promise<void> {
    if (this.reloading) {
      this.again = true;
      return this.reloading;
    }
    this.reloading = (async () => {
      try {
        do {
          this.again = false;
          this.snapshot = await this.build();
        } while (this.again);
      } finally {
        this.reloading = undefined;
      }
    })();
    return this.reloading;
  }

  private async build(): Promise<Snapshot> {
    const started = performance.now();
    await this.catalog.ready();
    const [apps, proxies, services] = await Promise.all([
      this.dataSource.getRepository(AppEntity).find(),
      this.dataSource.getRepository(ProxyEntity).find(),
      this.dataSource.getRepository(ServiceEntity).find(),
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
        origin: url.origin,
        basePath: url.pathname.replace(/\/+$/, ''),
        upstreamKey,
        catalog: matcher,
        revision: `${service.baseUrl}|${service.apiKeyCiphertext}`,
      });
    }
    const appStates = new Map<string, AppState>();
    const appsById = new Map<string, AppState>();
    for (const app of apps) {
      const state: AppState = { id: app.id, slug: app.slug, active: app.active, proxies: new Map() };
      appStates.set(app.slug, state);
      appsById.set(app.id, state);
    }
    for (const proxy of proxies) {
      const app = appsById.get(proxy.appId);
      const service = serviceStates.get(proxy.serviceId);
      if (!app || !service) continue;
      // Template blocks arrive with templates; until then the overrides are the whole allowlist.
      const effective = effectiveAllowlist({}, proxy.overrides);
      const allowlist = new CompiledAllowlist(effective);
      const unknown = allowlist.paths.filter((path) => !this.knows(service.catalog, path));
      app.proxies.set(proxy.keyDigest, {
        id: proxy.id,
        appId: app.id,
        appSlug: app.slug,
        keyDigest: proxy.keyDigest,
        active: proxy.active,
        service,
        allowlist,
        extraRoutes: unknown.length > 0 ? new RouteMatcher(unknown.map((path) => ({ path }))) : undefined,
      });
    }
    this.logger.debug(
      `Loaded ${apps.length} apps, ${proxies.length} proxies, ${services.length} services in ${Math.round(performance.now() - started)} ms`,
    );
    return { apps: appStates, services: serviceStates, upstreamKeyDigests };
  }

  /** Whether the catalog has a route of exactly this path's shape. */
  private knows(catalog: RouteMatcher, path: string): boolean {
    return catalog.hasShape(routeShape(path));
  }
}
