import type {
  AppDto,
  ProxyConnectionDto,
  ProxyUsageResponse,
  ServiceDto,
  UsageOverviewResponse,
} from '@arrbiter/contracts';
import {
  createTestDatabase,
  eventually,
  TestDatabase,
  usageTotals as total,
  seedProxy,
  seedService,
} from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { ServerProcess, startServer } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'usage suite passphrase' };

/** Reads `read` until `check` holds of it (at most 10 s: a call is counted when its response closes). */
async function readUntil<T>(what: string, read: () => Promise<T>, check: (value: T) => boolean): Promise<T> {
  let value = await read();
  await eventually(what, async () => check((value = await read())));
  return value;
}

describe('usage over HTTP: the production server, the fake Servarr and real proxy calls', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let movies: FakeServarr;
  let shows: FakeServarr;
  let admin: AdminHttpClient;
  let env: NodeJS.ProcessEnv;
  let moviesProxy: ProxyConnectionDto;
  let showsProxy: ProxyConnectionDto;
  let client: AppDto;
  let script: AppDto;
  let moviesService: ServiceDto;
  let showsService: ServiceDto;

  const call = async (slug: string, key: string, path: string, method = 'GET') => {
    const response = await fetch(`${server.url}/proxy/${slug}${path}`, { method, headers: { 'x-api-key': key } });
    await response.arrayBuffer();
    return response.status;
  };
  const proxyUsage = (id: string, query = '') =>
    admin.request<ProxyUsageResponse>('GET', `/api/admin/v1/proxies/${id}/usage${query}`);

  beforeAll(async () => {
    database = await createTestDatabase();
    movies = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    shows = await FakeServarr.start({ type: 'sonarr', instanceName: 'Shows' });
    env = { ...database.env, ...ADMIN, OPENAPI_SOURCES: 'none' };
    server = await startServer(env);
    admin = await AdminHttpClient.signIn(server, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
    moviesService = await seedService(admin, movies);
    showsService = await seedService(admin, shows);
    ({ app: client, proxy: moviesProxy } = await seedProxy(admin, {
      service: moviesService,
      app: { name: 'Client', slug: 'client' },
      config: {
        overrides: { '/api/v3/movie': ['get'], '/api/v3/movie/{id}': ['get'], '/api/v3/test/status/{code}': ['get'] },
        active: true,
      },
    }));
    ({ app: script, proxy: showsProxy } = await seedProxy(admin, {
      service: showsService,
      app: { name: 'Script', slug: 'script' },
      config: { overrides: { '/api/v3/system/status': ['get'] }, active: true },
    }));
  });
  afterAll(async () => {
    await server?.stop();
    await movies?.stop();
    await shows?.stop().catch(() => undefined);
    await database?.drop();
  });

  it('counts allowed, refused and failed calls per hour and route, and answers with them', async () => {
    const key = moviesProxy.key;
    expect(await call('client', key, '/api/v3/movie')).toBe(200);
    expect(await call('client', key, '/api/v3/movie?page=2')).toBe(200);
    expect(await call('client', key, '/api/v3/movie/7')).toBe(200);
    expect(await call('client', key, '/api/v3/test/status/500')).toBe(500);
    expect(await call('client', key, '/api/v3/config/host')).toBe(403);
    expect(await call('client', key, '/api/v3/movie/7', 'DELETE')).toBe(403);
    expect(await call('client', '0'.repeat(32), '/api/v3/movie')).toBe(401);

    const usage = await readUntil(
      'six calls of the movies proxy',
      () => proxyUsage(moviesProxy.id),
      (u) => total(u.buckets).forwarded + total(u.buckets).refused === 6,
    );
    expect(usage.buckets).toHaveLength(24);
    expect(usage.buckets.at(-1)).toMatchObject({ forwarded: 4, refused: 2, errors: 1 });
    expect(Date.parse(usage.buckets.at(-1)?.start ?? '') % 3_600_000).toBe(0);
    expect(usage.routes.map((r) => [r.method, r.route, r.count])).toEqual([
      ['get', '/api/v3/movie', 2],
      ['delete', '/api/v3/movie/{id}', 1],
      ['get', '/api/v3/config/host', 1],
      ['get', '/api/v3/movie/{id}', 1],
      ['get', '/api/v3/test/status/{code}', 1],
    ]);
    for (const route of usage.routes) expect(Date.now() - Date.parse(route.lastSeen)).toBeLessThan(60_000);
  });

  it("counts the gateway's 502 for an unreachable upstream as an upstream error", async () => {
    expect(await call('script', showsProxy.key, '/api/v3/system/status')).toBe(200);
    await shows.stop();
    expect(await call('script', showsProxy.key, '/api/v3/system/status')).toBe(502);
    expect(await call('script', showsProxy.key, '/api/v3/system/status')).toBe(502);
    const usage = await readUntil(
      'three calls of the shows proxy',
      () => proxyUsage(showsProxy.id),
      (u) => total(u.buckets).forwarded === 3,
    );
    expect(total(usage.buckets)).toEqual({ forwarded: 3, refused: 0, errors: 2 });
    expect(usage.routes.map((r) => [r.method, r.route, r.count])).toEqual([['get', '/api/v3/system/status', 3]]);
  });

  it('totals every proxy per app and per service, hour by hour', async () => {
    const overview = await admin.request<UsageOverviewResponse>('GET', '/api/admin/v1/usage');
    expect(overview.buckets).toHaveLength(24);
    expect(total(overview.buckets)).toEqual({ forwarded: 7, refused: 2, errors: 3 });
    expect(overview.apps).toEqual([
      { appId: client.id, name: 'Client', slug: 'client', forwarded: 4, refused: 2, errors: 1 },
      { appId: script.id, name: 'Script', slug: 'script', forwarded: 3, refused: 0, errors: 2 },
    ]);
    expect(overview.services).toEqual([
      { serviceId: moviesService.id, name: 'Movies', type: 'radarr', forwarded: 4, refused: 2, errors: 1 },
      { serviceId: showsService.id, name: 'Shows', type: 'sonarr', forwarded: 3, refused: 0, errors: 2 },
    ]);
    // A period of its own: the last 7 days in whole hours.
    const from = new Date(Date.now() - 7 * 86_400_000).toISOString();
    const week = await admin.request<UsageOverviewResponse>('GET', `/api/admin/v1/usage?from=${from}`);
    expect(week.buckets.length).toBeGreaterThanOrEqual(168);
    expect(total(week.buckets)).toEqual(total(overview.buckets));
  });

  it('refuses a bad period with 400 and an unknown proxy with 404', async () => {
    const status = async (path: string) =>
      (await fetch(`${server.url}${path}`, { headers: { cookie: admin.cookieHeader } })).status;
    expect(await status(`/api/admin/v1/proxies/${moviesProxy.id}/usage?from=last-week`)).toBe(400);
    expect(await status(`/api/admin/v1/usage?from=2026-01-01T00:00:00Z&to=2025-01-01T00:00:00Z`)).toBe(400);
    expect(await status(`/api/admin/v1/usage?from=2020-01-01T00:00:00Z&to=2021-01-01T00:00:00Z`)).toBe(400);
    expect(await status('/api/admin/v1/proxies/3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f/usage')).toBe(404);
    expect((await fetch(`${server.url}/api/admin/v1/usage`)).status).toBe(401);
  });

  it('writes what was counted when it shuts down: a restart keeps the last calls', async () => {
    expect(await call('client', moviesProxy.key, '/api/v3/movie')).toBe(200);
    // Stopped at once, before the next write-behind: the shutdown writes it.
    expect(await server.stop()).toBe(0);
    server = await startServer(env);
    admin = await AdminHttpClient.signIn(server, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
    const usage = await proxyUsage(moviesProxy.id);
    expect(total(usage.buckets)).toEqual({ forwarded: 5, refused: 2, errors: 1 });
    expect(usage.routes[0]).toMatchObject({ method: 'get', route: '/api/v3/movie', count: 3 });
  });
});
