import type { AppDto, ProxyConnectionDto, ServiceDto } from '@arrbiter/contracts';
import { seedProxy } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import type { AdminClient } from './test-app';

export interface ProxiedUpstream {
  upstream: FakeServarr;
  service: ServiceDto;
  app: AppDto;
  proxy: ProxyConnectionDto;
}

/**
 * A fake Radarr under the URL base `/radarr`, registered as a service, and an active app `slug` with an
 * active proxy on it granted `overrides`: what the proxy route's suites start from.
 */
export async function proxiedUpstream(
  admin: AdminClient,
  slug: string,
  name: string,
  overrides: Record<string, string[]>,
): Promise<ProxiedUpstream> {
  const setup = await ungrantedProxy(admin, slug, name);
  await admin.put(`/api/admin/v1/proxies/${setup.proxy.id}/config`, { overrides, active: true }).expect(200);
  return setup;
}

/**
 * The same, before anything is granted: the proxy is active and its allowlist empty, as a new proxy is
 * (it refuses every call with 403).
 */
export async function ungrantedProxy(admin: AdminClient, slug: string, name: string): Promise<ProxiedUpstream> {
  const upstream = await FakeServarr.start({ type: 'radarr', urlBase: '/radarr' });
  const { service, app, proxy } = await seedProxy(admin, { upstream, app: { name, slug } });
  return { upstream, service, app, proxy };
}
