import { Injectable, NotFoundException } from '@nestjs/common';
import type { KnownCaller, KnownClientCallDto, KnownClientDto, KnownClientSummaryDto } from '@arrbiter/contracts';
import {
  canonicalizePath,
  CatalogService,
  HttpMethod,
  isHttpMethod,
  ResolvedRoute,
  RouteMatcher,
  routeShape,
} from '@arrbiter/server/catalog';
import { KNOWN_CLIENTS } from './catalogue';
import { canonicalCalls, riskOfRoute } from './fit';
import type { KnownClient, KnownClientCall } from './known-client';

/** Who makes a call: by service type, method and route (or exact path, for calls that resolve to no route). */
export interface KnownCallers {
  of(serviceType: string, method: string, route: string | null, path: string): KnownCaller[];
}

/** A call with the catalog route it resolves to (undefined when none) and that route's risk, else its path's. */
function callDto(serviceType: string, call: KnownClientCall, route: ResolvedRoute | undefined): KnownClientCallDto {
  return {
    method: call.method,
    path: call.path,
    ...(call.query ? { query: call.query } : {}),
    route: route?.path ?? null,
    source: { ...call.source },
    ...(call.note ? { note: call.note } : {}),
    ...(call.outsideApi ? { outsideApi: true } : {}),
    risk: riskOfRoute(serviceType, call.method, route ?? call.path),
  };
}

function summaryOf(client: KnownClient): KnownClientSummaryDto {
  return {
    id: client.id,
    name: client.name,
    projectUrl: client.projectUrl,
    source: { ...client.source },
    templateNames: [...client.templateNames],
    calls: Object.fromEntries(Object.entries(client.services).map(([type, calls]) => [type, calls?.length ?? 0])),
    instructions: client.setup !== undefined,
  };
}

/** The service types a client calls. */
export function serviceTypesOf(client: KnownClient): string[] {
  return Object.entries(client.services)
    .filter(([, calls]) => (calls?.length ?? 0) > 0)
    .map(([type]) => type);
}

/**
 * The catalogue of known clients (`data/<id>.json`, inlined in the build), loaded and indexed once,
 * and read against the OpenAPI descriptions the server holds: per service type, the union of every
 * stored version (`CatalogService.routesOfType`), rebuilt when those change.
 */
@Injectable()
export class KnownClientsService {
  private readonly byId = new Map(KNOWN_CLIENTS.map((client) => [client.id, client]));
  /** By lower-cased id and template name. */
  private readonly byTemplate = new Map<string, KnownClient>();
  private readonly summaries = KNOWN_CLIENTS.map(summaryOf).sort((a, b) => a.id.localeCompare(b.id));
  /** What is computed from the catalog, for the catalog's generation it was computed from. */
  private derived?: { generation: number; matchers: Map<string, RouteMatcher>; callers?: KnownCallers };

  constructor(private readonly catalog: CatalogService) {
    for (const client of KNOWN_CLIENTS) {
      for (const name of [client.id, ...client.templateNames]) {
        if (!this.byTemplate.has(name.toLowerCase())) this.byTemplate.set(name.toLowerCase(), client);
      }
    }
  }

  list(): KnownClientSummaryDto[] {
    return this.summaries;
  }

  /** The client; 404 when there is none. */
  find(id: string): KnownClient {
    const client = this.byId.get(id);
    if (!client)
      throw new NotFoundException(`No known client "${id.slice(0, 100)}" (GET /api/admin/v1/known-clients lists them)`);
    return client;
  }

  /** The client written for a template: its id or one of its template names, in any case. */
  forTemplate(name: string): KnownClient | undefined {
    return this.byTemplate.get(name.toLowerCase());
  }

  /** The client with its calls, each with the route the server's descriptions resolve it to and its risk. */
  async get(id: string): Promise<KnownClientDto> {
    const client = this.find(id);
    const services: Record<string, KnownClientCallDto[]> = {};
    for (const type of Object.keys(client.services)) {
      const catalog = await this.catalogOfType(type);
      services[type] = canonicalCalls(client, type).map(({ call, segments }) =>
        callDto(type, call, segments && catalog.resolve(segments, call.method)),
      );
    }
    return { ...summaryOf(client), services };
  }

  /** The route table of a service type: every stored version's routes. */
  async catalogOfType(serviceType: string): Promise<RouteMatcher> {
    return this.matcher(`${serviceType}|*`, () => this.catalog.routesOfType(serviceType));
  }

  /** The route table of a service serving these API versions, as the proxy builds it (`ProxyRegistry`). */
  async catalogOf(serviceType: string, apiVersions: readonly string[]): Promise<RouteMatcher> {
    return this.matcher(`${serviceType}|${apiVersions.join(',')}`, () =>
      this.catalog.routesFor(serviceType, apiVersions),
    );
  }

  /**
   * Who makes which call, from memory (a warning's page asks once, never per warning): each client's
   * calls resolved against the catalog of their service type, keyed by method and route shape, or by
   * their exact path when they resolve to no route (a refused call outside the API is recorded so). A
   * call outside the API written as a template (`/backup/{type}/{file}`) names the recorded path it matches.
   */
  async callers(): Promise<KnownCallers> {
    const derived = await this.current();
    if (derived.callers) return derived.callers;
    const index = new Map<string, KnownCaller[]>();
    /** Per service type, the template paths of calls that resolve to no route. */
    const templates = new Map<string, Set<string>>();
    for (const client of KNOWN_CLIENTS) {
      for (const type of serviceTypesOf(client)) {
        const catalog = await this.catalogOfType(type);
        for (const { call, path, segments } of canonicalCalls(client, type)) {
          if (path === undefined || segments === undefined) continue;
          const route = catalog.resolve(segments, call.method)?.path;
          if (!route && call.pathSamples) templates.set(type, (templates.get(type) ?? new Set()).add(path));
          const key = `${type} ${call.method} ${routeShape(route ?? path)}`;
          const callers = index.get(key) ?? [];
          if (!callers.some((caller) => caller.client === client.id))
            callers.push({ client: client.id, clientName: client.name, source: { ...call.source } });
          index.set(key, callers);
        }
      }
    }
    const matchers = new Map(
      [...templates].map(([type, paths]) => [type, new RouteMatcher([...paths].map((path) => ({ path })))]),
    );
    /** A recorded path outside the API, or the catalogue's template it matches. */
    const templateOf = (serviceType: string, method: string, path: string) => {
      const matcher = matchers.get(serviceType);
      const canonical = matcher && isHttpMethod(method) ? canonicalizePath(path) : undefined;
      return (canonical?.ok && matcher?.resolve(canonical.segments, method as HttpMethod)?.path) || path;
    };
    const callers: KnownCallers = {
      of: (serviceType, method, route, path) =>
        (index.get(`${serviceType} ${method} ${routeShape(route ?? templateOf(serviceType, method, path))}`) ?? []).map(
          (caller) => ({
            ...caller,
            source: { ...caller.source },
          }),
        ),
    };
    derived.callers = callers;
    return callers;
  }

  private async matcher(key: string, routes: () => ReturnType<CatalogService['routesFor']>): Promise<RouteMatcher> {
    const { matchers } = await this.current();
    let matcher = matchers.get(key);
    if (!matcher) matchers.set(key, (matcher = new RouteMatcher(routes())));
    return matcher;
  }

  /** What is computed from the catalog, dropped when the catalog has changed since. */
  private async current(): Promise<NonNullable<KnownClientsService['derived']>> {
    await this.catalog.ready();
    const generation = this.catalog.generation;
    if (this.derived?.generation !== generation) this.derived = { generation, matchers: new Map() };
    return this.derived;
  }
}
