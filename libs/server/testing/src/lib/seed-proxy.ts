import type { AppDto, CreateAppRequest, ProxyConfigRequest, ProxyConnectionDto, ServiceDto } from '@arrbiter/contracts';

/** A request as supertest builds one: awaiting it gives the answer. */
type SentRequest = PromiseLike<{ status: number; body: unknown; text?: string }>;

/**
 * An admin API client as the suites have one, with the admin's session: the e2e suites'
 * `AdminHttpClient` (`request`, which fails unless the answer is a success) or the whole-app specs'
 * supertest `AdminClient` (`post`/`put`).
 */
export type SeedClient =
  | { request<T>(method: string, path: string, body?: unknown): Promise<T> }
  | { post(path: string, body?: object): SentRequest; put(path: string, body?: object): SentRequest };

/** One admin write that fails the test unless it succeeds (2xx), resolving to the parsed body. */
async function send<T>(admin: SeedClient, method: 'POST' | 'PUT', path: string, body: object): Promise<T> {
  if ('request' in admin) return admin.request<T>(method, path, body);
  const response = await (method === 'POST' ? admin.post(path, body) : admin.put(path, body));
  if (response.status < 200 || response.status > 299)
    throw new Error(`${method} ${path} answered ${response.status}: ${response.text ?? ''}`);
  return response.body as T;
}

/** An upstream to register as a new service: a `FakeServarr`, or anything with its URL and API key. */
export type SeedUpstream = { url: string; options: { apiKey: string } } | { url: string; apiKey: string };

export interface SeedProxyOptions {
  /** Registered as a new service (POST /services) unless `service` is given. */
  upstream?: SeedUpstream;
  /** A service registered before (several proxies on one upstream). */
  service?: ServiceDto;
  /** A new app (active and without a template unless said), or an app created before. */
  app: (Pick<CreateAppRequest, 'name' | 'slug'> & Partial<CreateAppRequest>) | AppDto;
  /** Saved with PUT /proxies/:id/config when given; without it the proxy stays as created (active, empty). */
  config?: ProxyConfigRequest;
}

export interface SeededProxy {
  service: ServiceDto;
  app: AppDto;
  /** As created: its key is the first one. */
  proxy: ProxyConnectionDto;
}

/** The API key of an upstream, whichever shape it has. */
function apiKeyOf(upstream: SeedUpstream): string {
  return 'apiKey' in upstream ? upstream.apiKey : upstream.options.apiKey;
}

/** Registers `upstream` as a service (POST /api/admin/v1/services). */
export async function seedService(admin: SeedClient, upstream: SeedUpstream): Promise<ServiceDto> {
  return send<ServiceDto>(admin, 'POST', '/api/admin/v1/services', {
    baseUrl: upstream.url,
    apiKey: apiKeyOf(upstream),
  });
}

/**
 * What a suite that calls through the proxy route starts from, through the admin API as an operator
 * builds it: the service (registered from `upstream`, or `service`), the app (created unless given) and a
 * proxy of the app on the service, with `config` saved when given.
 */
export async function seedProxy(admin: SeedClient, options: SeedProxyOptions): Promise<SeededProxy> {
  let service = options.service;
  if (!service) {
    if (!options.upstream) throw new Error('seedProxy needs an upstream or a service');
    service = await seedService(admin, options.upstream);
  }
  const app =
    'id' in options.app
      ? options.app
      : await send<AppDto>(admin, 'POST', '/api/admin/v1/apps', {
          templateId: null,
          active: true,
          ...options.app,
        } satisfies CreateAppRequest);
  const proxy = await send<ProxyConnectionDto>(admin, 'POST', `/api/admin/v1/apps/${app.id}/proxies`, {
    serviceId: service.id,
  });
  if (options.config) await send(admin, 'PUT', `/api/admin/v1/proxies/${proxy.id}/config`, options.config);
  return { service, app, proxy };
}
