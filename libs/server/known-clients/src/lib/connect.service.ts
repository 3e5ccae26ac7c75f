import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import type {
  AllowlistMap,
  ConnectClientRequest,
  ConnectClientResponse,
  ConnectedProxyDto,
  FitMissingCall,
  Grant,
  NamedCall,
} from '@arrbiter/contracts';
import { AppsService } from '@arrbiter/server/apps';
import { effectiveAllowlist, grantsOf, RouteMatcher } from '@arrbiter/server/catalog';
import { generateProxyKey } from '@arrbiter/server/crypto';
import { ChangeBus } from '@arrbiter/server/database';
import { checkedOverrides, overridesWithGrants } from '@arrbiter/server/permissions';
import { ProxiesService, ProxyDefaultsService } from '@arrbiter/server/proxies';
import { ServiceRow, ServicesService } from '@arrbiter/server/services';
import { TemplateRow, TemplatesService } from '@arrbiter/server/templates';
import { routeShape } from '@arrbiter/shared/allowlist-rules';
import { fitOf } from './fit';
import { renderInstructions } from './instructions';
import type { KnownClient } from './known-client';
import { KnownClientsService, serviceTypesOf } from './known-clients.service';

/** What connecting grants one proxy: the template's block plus the client's calls. */
export interface ConnectPlan {
  /** The overrides over the template block (checked and normalised). */
  overrides: AllowlistMap;
  /** The number of grants of the effective allowlist. */
  granted: number;
}

/** The same call: method and route shape (`/api/v3/movie/{id}` = `/api/v3/movie/{movieId}`). */
function sameCall(a: Pick<NamedCall, 'method' | 'route'>, b: Pick<NamedCall, 'method' | 'route'>): boolean {
  return a.method.toLowerCase() === b.method.toLowerCase() && routeShape(a.route) === routeShape(b.route);
}

/**
 * The client's calls to a service type, one per method and route, as a grant of each (`fitOf` on an
 * empty allowlist: the route the proxy resolves each call to, or its exact path outside the API), each
 * with its risk.
 */
export function clientCalls(client: KnownClient, serviceType: string, catalog: RouteMatcher): FitMissingCall[] {
  return fitOf(client, serviceType, catalog, {}).missing;
}

/**
 * The overrides that make a proxy's allowlist the template block (`{}` for none) plus exactly the
 * client's calls that are not sensitive, plus the sensitive ones in `sensitive` (already checked to be
 * calls of the client).
 */
export function connectPlan(
  calls: readonly FitMissingCall[],
  block: AllowlistMap,
  sensitive: readonly Pick<NamedCall, 'method' | 'route'>[],
): ConnectPlan {
  const grants: Grant[] = calls
    .filter((call) => !call.risk.sensitive || sensitive.some((named) => sameCall(named, call)))
    .map(({ method, route }) => ({ path: route, method }));
  const overrides = checkedOverrides(overridesWithGrants(block, {}, grants));
  return { overrides, granted: grantsOf(effectiveAllowlist(block, overrides)).length };
}

/** One service to connect, with the client's calls to its type and the sensitive ones to grant. */
interface PlannedProxy {
  service: ServiceRow;
  calls: FitMissingCall[];
  sensitive: NamedCall[];
}

/**
 * Connects a known client in one call (`POST /api/admin/v1/known-clients/:id/connect`): one app that
 * records the client, one proxy per service with a new key, each allowlist the template's block (if
 * any) plus the client's calls to that service type that are not sensitive plus the sensitive ones
 * named, recorded as the proxy's first revision, of kind `client-fit`. Everything is checked before the
 * one transaction that writes it; the proxy route sees the new proxies before this returns.
 */
@Injectable()
export class ConnectService {
  constructor(
    private readonly known: KnownClientsService,
    private readonly services: ServicesService,
    private readonly templates: TemplatesService,
    private readonly apps: AppsService,
    private readonly proxies: ProxiesService,
    private readonly defaults: ProxyDefaultsService,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly changes: ChangeBus,
  ) {}

  /**
   * Runs `create` in one transaction; with a default slug, again (up to 5 times) when a concurrent
   * connect took the free slug it picked in between (409), so that both get one.
   */
  private async createWithFreeSlug<T>(defaultSlug: boolean, create: () => Promise<T>): Promise<T> {
    for (let attempt = 1; ; attempt += 1) {
      try {
        return await this.txHost.withTransaction(create);
      } catch (error) {
        if (!defaultSlug || attempt >= 5 || !(error instanceof ConflictException)) throw error;
      }
    }
  }

  /** `externalUrl`: where callers reach this server (`ExternalUrls.urlOf` the request), for the Proxy URLs. */
  async connect(
    clientId: string,
    request: ConnectClientRequest,
    actor: string,
    externalUrl: string,
  ): Promise<ConnectClientResponse> {
    const client = this.known.find(clientId);
    const { planned, template } = await this.plan(client, request);
    const created = await this.createWithFreeSlug(request.slug === undefined, async () => {
      const defaults = await this.defaults.get();
      const app = await this.apps.createInTransaction(
        {
          name: request.name ?? client.name,
          slug: request.slug ?? (await this.apps.freeSlug(client.id)),
          templateId: template?.id ?? null,
          active: true,
          knownClientId: client.id,
        },
        actor,
      );
      const proxies: (ConnectedProxyDto & { key: string })[] = [];
      for (const { service, calls, sensitive } of planned) {
        const { overrides, granted } = connectPlan(calls, template?.blocks[service.type] ?? {}, sensitive);
        const key = generateProxyKey();
        const proxy = await this.proxies.createInTransaction(
          app.id,
          service.id,
          { active: true, overrides, rateLimit: defaults.rateLimit, scrub: defaults.scrub, key },
          actor,
          'client-fit',
          `Connected as ${client.name}`,
        );
        proxies.push({
          id: proxy.id,
          serviceId: service.id,
          serviceName: service.name,
          serviceType: service.type,
          key,
          proxyUrl: `${externalUrl}/proxy/${app.slug}`,
          granted,
        });
      }
      return { app, proxies };
    });
    // The new app and its proxies reach the proxy route together, before the answer.
    await this.changes.publish('apps', created.app.id);
    return {
      app: await this.apps.get(created.app.id),
      proxies: created.proxies,
      instructions: created.proxies.map((proxy) =>
        renderInstructions(client, {
          serviceId: proxy.serviceId,
          proxyId: proxy.id,
          serviceName: proxy.serviceName,
          serviceType: proxy.serviceType,
          proxyUrl: proxy.proxyUrl,
          key: proxy.key,
        }),
      ),
    };
  }

  /**
   * The overrides a new proxy of this client on a service of `service` (type and API versions) gets
   * over `block`: the client's calls that are not sensitive (a declarative `client:`, resolved once, at
   * creation). 400 when the client makes no calls to that type.
   */
  async overridesFor(
    clientId: string,
    service: Pick<ServiceRow, 'type' | 'apiVersions'>,
    block: AllowlistMap,
  ): Promise<AllowlistMap> {
    const client = this.known.find(clientId);
    this.requireType(client, service.type);
    const catalog = await this.known.catalogOf(service.type, service.apiVersions);
    return connectPlan(clientCalls(client, service.type, catalog), block, []).overrides;
  }

  /** Every check, before anything is written: services (404, 400), the template (404), the sensitive calls (400). */
  private async plan(
    client: KnownClient,
    request: ConnectClientRequest,
  ): Promise<{ planned: PlannedProxy[]; template: TemplateRow | null }> {
    const found = await this.services.byIds(request.serviceIds);
    const services = request.serviceIds.map((id) => {
      const service = found.get(id);
      if (!service) throw new NotFoundException(`No such service: ${id}`);
      this.requireType(client, service.type);
      return service;
    });
    const template = request.templateId ? await this.templates.find(request.templateId) : null;
    const named = request.include?.sensitive ?? [];
    const planned: PlannedProxy[] = [];
    for (const service of services) {
      const catalog = await this.known.catalogOf(service.type, service.apiVersions);
      planned.push({ service, calls: clientCalls(client, service.type, catalog), sensitive: [] });
    }
    const problems: string[] = [];
    for (const call of named) {
      const label = `${call.method.toUpperCase()} ${call.route}`;
      if (call.serviceId !== undefined && !request.serviceIds.includes(call.serviceId)) {
        problems.push(`include.sensitive: ${label} names the service ${call.serviceId}, which is not in serviceIds`);
        continue;
      }
      const targets = planned.filter((p) => call.serviceId === undefined || p.service.id === call.serviceId);
      const matching = targets.filter((p) => p.calls.some((c) => c.risk.sensitive && sameCall(c, call)));
      if (matching.length === 0) {
        const on =
          call.serviceId !== undefined
            ? targets[0].service.type
            : [...new Set(targets.map((p) => p.service.type))].join(' or ');
        problems.push(
          `include.sensitive: ${label} is not a sensitive call ${client.name} makes to ${on} (GET /api/admin/v1/known-clients/${client.id} lists its calls and their risk)`,
        );
        continue;
      }
      for (const p of matching) p.sensitive.push(call);
    }
    if (problems.length > 0) throw new BadRequestException(problems);
    return { planned, template };
  }

  /** 400 naming the types the client calls when it makes no call to this one. */
  private requireType(client: KnownClient, serviceType: string): void {
    const types = serviceTypesOf(client);
    if (!types.includes(serviceType))
      throw new BadRequestException([
        `${client.name} makes no calls to ${serviceType}: it calls ${types.join(', ') || 'nothing'}`,
      ]);
  }
}
