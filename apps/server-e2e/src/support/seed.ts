import type { AppDto, ProxyConfigRequest, ProxyConnectionDto, ServiceDto } from '@arrbiter/contracts';
import type { FakeServarr } from '@arrbiter/tools/fake-servarr';
import type { AdminHttpClient } from './admin-client';

export interface ProxiedApp {
  service: ServiceDto;
  app: AppDto;
  /** As created: its key is the first one. */
  proxy: ProxyConnectionDto;
}

/**
 * `upstream` registered as a service, an active app without a template and a proxy of it on that
 * service with `config` saved: what a suite that calls through the proxy starts from.
 */
export async function proxiedApp(
  admin: AdminHttpClient,
  upstream: FakeServarr,
  { name, slug, config }: { name: string; slug: string; config: ProxyConfigRequest },
): Promise<ProxiedApp> {
  const service = await admin.request<ServiceDto>('POST', '/api/admin/v1/services', {
    baseUrl: upstream.url,
    apiKey: upstream.options.apiKey,
  });
  const app = await admin.request<AppDto>('POST', '/api/admin/v1/apps', { name, slug, templateId: null, active: true });
  const proxy = await admin.request<ProxyConnectionDto>('POST', `/api/admin/v1/apps/${app.id}/proxies`, {
    serviceId: service.id,
  });
  await admin.request('PUT', `/api/admin/v1/proxies/${proxy.id}/config`, config);
  return { service, app, proxy };
}
