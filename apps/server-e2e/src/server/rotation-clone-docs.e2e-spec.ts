import type { AppDto, ProxyConnectionDto, RotateKeyResponse } from '@arrbiter/contracts';
import { createTestDatabase, eventually, TestDatabase, seedProxy } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { ServerProcess, startServer } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'rotation clone docs passphrase' };

/**
 * Key rotation with a grace period, cloning an app and the admin API's description, over HTTP against
 * the production build and a fake Radarr. (The end of a grace period at its time is proven with the
 * server's clock moved: apps/server/src/app/key-rotation.spec.ts.)
 */
describe('operator features over HTTP: key rotation, cloning, the API description', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let upstream: FakeServarr;
  let admin: AdminHttpClient;
  let app: AppDto;
  let proxy: ProxyConnectionDto;

  const call = async (slug: string, key: string, path = '/api/v3/movie') => {
    const response = await fetch(`${server.url}/proxy/${slug}${path}`, { headers: { 'x-api-key': key } });
    return { status: response.status, body: await response.text() };
  };
  const connection = (id: string) => admin.request<ProxyConnectionDto>('GET', `/api/admin/v1/proxies/${id}`);

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    server = await startServer({ ...database.env, ...ADMIN, OPENAPI_SOURCES: 'none' });
    admin = await AdminHttpClient.signIn(server, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
    ({ app, proxy } = await seedProxy(admin, {
      upstream,
      app: { name: 'Homepage', slug: 'homepage' },
      config: { overrides: { '/api/v3/movie': ['get'] }, active: true, rateLimit: { perMinute: 600, burst: 50 } },
    }));
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.stop();
    await database?.drop();
  });

  describe('key rotation with a grace period', () => {
    let old: string;
    let rotated: RotateKeyResponse;

    it('keeps the old key working beside the new one, and counts its calls', async () => {
      old = proxy.key;
      rotated = await admin.request<RotateKeyResponse>('POST', `/api/admin/v1/proxies/${proxy.id}/rotate-key`, {
        graceMinutes: 60,
      });
      expect(rotated.key).toMatch(/^[0-9a-f]{32}$/);
      expect(Date.parse(rotated.previousKeyValidUntil ?? '')).toBeGreaterThan(Date.now() + 59 * 60_000);
      expect((await call('homepage', rotated.key)).status).toBe(200);
      expect((await call('homepage', old)).status).toBe(200);
      expect((await call('homepage', old)).status).toBe(200);
      // The upstream got its own key both times, never a proxy key.
      expect(upstream.requests.slice(-3).map((r) => r.headers['x-api-key'])).toEqual(
        Array(3).fill(upstream.options.apiKey),
      );
      await eventually(
        'the calls with the old key are counted',
        async () => (await connection(proxy.id)).previousKey?.uses === 2,
      );
      const shown = await connection(proxy.id);
      expect(shown.key).toBe(rotated.key);
      expect(shown.previousKey).toEqual({
        validUntil: rotated.previousKeyValidUntil,
        uses: 2,
        lastUsedAt: expect.any(String),
      });
      expect(JSON.stringify(shown)).not.toContain(old);
    });

    it('ends the grace period on request: the old key is then refused like any unknown key', async () => {
      await admin.request('DELETE', `/api/admin/v1/proxies/${proxy.id}/previous-key`, undefined, [204]);
      const refused = await call('homepage', old);
      const unknown = await call('homepage', 'f'.repeat(32));
      expect(refused).toEqual(unknown);
      expect(refused.status).toBe(401);
      expect((await call('homepage', rotated.key)).status).toBe(200);
      expect((await connection(proxy.id)).previousKey).toBeNull();
      // Nothing left to end.
      await admin.request('DELETE', `/api/admin/v1/proxies/${proxy.id}/previous-key`, undefined, [404]);
      // Out of range: refused, naming the field.
      await expect(
        admin.request('POST', `/api/admin/v1/proxies/${proxy.id}/rotate-key`, { graceMinutes: 10_081 }),
      ).rejects.toThrow(/answered 400: .*graceMinutes/);
      proxy = await connection(proxy.id);
    });

    it('never printed a key', () => {
      for (const key of [old, rotated.key]) expect(server.output()).not.toContain(key);
    });
  });

  describe('cloning an app', () => {
    it('makes a new app with the same configuration and a new key that works at once', async () => {
      const copy = await admin.request<AppDto>('POST', `/api/admin/v1/apps/${app.id}/clone`, {
        name: 'Homepage (second)',
        slug: 'homepage-2',
      });
      expect(copy).toMatchObject({ name: 'Homepage (second)', slug: 'homepage-2', active: true, proxyCount: 1 });
      const [copied] = await admin.request<ProxyConnectionDto[]>('GET', `/api/admin/v1/apps/${copy.id}/proxies`);
      const details = await connection(copied.id);
      expect(details).toMatchObject({
        serviceId: proxy.serviceId,
        active: true,
        rateLimit: { perMinute: 600, burst: 50 },
      });
      expect(details.key).not.toBe(proxy.key);
      expect(details.proxyUrl).toMatch(/\/proxy\/homepage-2$/);
      expect((await call('homepage-2', details.key)).status).toBe(200);
      expect((await call('homepage-2', details.key, '/api/v3/calendar')).status).toBe(403);
      expect((await call('homepage-2', proxy.key)).status).toBe(401);
      expect((await call('homepage', details.key)).status).toBe(401);
    });

    it('answers 409 for a slug in use', async () => {
      await admin.request('POST', `/api/admin/v1/apps/${app.id}/clone`, { name: 'Again', slug: 'homepage-2' }, [409]);
    });
  });

  describe('the admin API description', () => {
    it('needs a session: 401 without one', async () => {
      for (const path of ['/api/docs', '/api/docs/openapi.json'])
        expect([path, (await fetch(`${server.url}${path}`)).status]).toEqual([path, 401]);
    });

    it('serves the OpenAPI 3 document, with the routes added here, and its viewer', async () => {
      const document = await admin.request<{ openapi: string; paths: Record<string, Record<string, unknown>> }>(
        'GET',
        '/api/docs/openapi.json',
      );
      expect(document.openapi).toMatch(/^3\./);
      expect(Object.keys(document.paths['/api/admin/v1/proxies/{id}/rotate-key'])).toEqual(['post']);
      expect(Object.keys(document.paths['/api/admin/v1/proxies/{id}/previous-key'])).toEqual(['delete']);
      expect(Object.keys(document.paths['/api/admin/v1/apps/{id}/clone'])).toEqual(['post']);
      expect(Object.keys(document.paths).filter((path) => !/^\/api\/(admin\/v1|auth)\//.test(path))).toEqual([]);
      const page = await fetch(`${server.url}/api/docs`, { headers: { cookie: admin.cookieHeader } });
      expect(page.status).toBe(200);
      expect(page.headers.get('content-type')).toMatch(/text\/html/);
      expect(await page.text()).toContain('/api/docs/swagger-ui-bundle.js');
      // The dashboard's own routes still fall back to the app.
      expect((await fetch(`${server.url}/apps`)).headers.get('content-type')).toMatch(/text\/html/);
      expect(
        (await fetch(`${server.url}/api/docs/nothing-here`, { headers: { cookie: admin.cookieHeader } })).status,
      ).toBe(404);
    });
  });
});
