import type { AppDto, ProxyConfigSaveResponse, ProxyConnectionDto, ServiceDto } from '@arrbiter/contracts';
import { FakeServarr, fakeOpenApi } from '@arrbiter/tools/fake-servarr';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

describe('admin API: services, apps, proxies, OpenAPI catalogs', () => {
  let t: TestApp;
  let admin: AdminClient;
  let radarr: FakeServarr;
  let sonarr: FakeServarr;
  const responses: string[] = [];
  const keep = <T extends { text: string }>(response: T): T => {
    responses.push(response.text);
    return response;
  };

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    radarr = await FakeServarr.start({ type: 'radarr', urlBase: '/radarr', instanceName: 'Movies' });
    sonarr = await FakeServarr.start({ type: 'sonarr', current: 'v5', deprecated: ['v3'], openapi: false });
  });
  afterAll(async () => {
    await radarr.stop();
    await sonarr.stop();
    await t.close();
  });

  async function serviceCount(): Promise<number> {
    return ((await admin.get('/api/admin/v1/services').expect(200)).body as ServiceDto[]).length;
  }

  describe('services', () => {
    it('discovers name, type, versions and the upstream version, honouring the URL base', async () => {
      const response = keep(
        await admin
          .post('/api/admin/v1/services', { baseUrl: `${radarr.url}/`, apiKey: radarr.options.apiKey })
          .expect(201),
      );
      expect(response.body).toMatchObject({
        name: 'Movies',
        type: 'radarr',
        baseUrl: radarr.url,
        apiVersions: ['v3'],
        upstreamVersion: radarr.options.version,
      });
      expect(Object.keys(response.body)).not.toContain('apiKey');
      // The upstream served its own description: the catalog is stored.
      const docs = (await admin.get('/api/admin/v1/openapi').expect(200)).body as {
        serviceType: string;
        source: string;
      }[];
      expect(docs).toEqual([expect.objectContaining({ serviceType: 'radarr', apiVersion: 'v3', source: 'upstream' })]);
    });

    it('lists current and deprecated API versions', async () => {
      const response = keep(
        await admin.post('/api/admin/v1/services', { baseUrl: sonarr.url, apiKey: sonarr.options.apiKey }).expect(201),
      );
      expect(response.body).toMatchObject({ type: 'sonarr', apiVersions: ['v5', 'v3'] });
    });

    it('refuses a second registration of the same base URL', async () => {
      await admin.post('/api/admin/v1/services', { baseUrl: radarr.url, apiKey: radarr.options.apiKey }).expect(409);
    });

    it.each([
      ['a wrong key', () => ({ baseUrl: `${radarr.url}x`, apiKey: radarr.options.apiKey }), 422],
      ['a refused key', () => ({ baseUrl: `http://127.0.0.1:${radarr.port}/radarr/`, apiKey: '0'.repeat(32) }), 422],
      ['a closed port', () => ({ baseUrl: 'http://127.0.0.1:1', apiKey: radarr.options.apiKey }), 502],
      ['a base URL ending in /api/v3', () => ({ baseUrl: `${radarr.url}/api/v3`, apiKey: radarr.options.apiKey }), 400],
      ['a base URL ending in /api', () => ({ baseUrl: `${radarr.url}/API/`, apiKey: radarr.options.apiKey }), 400],
      [
        'credentials in the URL',
        () => ({ baseUrl: `http://u:p@127.0.0.1:${radarr.port}`, apiKey: radarr.options.apiKey }),
        400,
      ],
      ['a query', () => ({ baseUrl: `${radarr.url}?x=1`, apiKey: radarr.options.apiKey }), 400],
      ['another scheme', () => ({ baseUrl: 'ftp://127.0.0.1/', apiKey: radarr.options.apiKey }), 400],
      ['a missing key', () => ({ baseUrl: radarr.url }), 400],
      ['an unknown field', () => ({ baseUrl: radarr.url, apiKey: radarr.options.apiKey, name: 'x' }), 400],
    ])('fails cleanly with %s and stores nothing', async (_name, body, status) => {
      const before = await serviceCount();
      const response = keep(await admin.post('/api/admin/v1/services', body()).expect(status));
      expect(response.body).toMatchObject({ statusCode: status, message: expect.anything() });
      expect(await serviceCount()).toBe(before);
    });

    it('re-discovers on PATCH and keeps the old state when the new key is refused', async () => {
      const [service] = ((await admin.get('/api/admin/v1/services').expect(200)).body as ServiceDto[]).filter(
        (s) => s.type === 'radarr',
      );
      await admin.patch(`/api/admin/v1/services/${service.id}`, { apiKey: 'e'.repeat(32) }).expect(422);
      const same = keep(await admin.patch(`/api/admin/v1/services/${service.id}`, {}).expect(200));
      expect(same.body).toMatchObject({ id: service.id, name: 'Movies', baseUrl: radarr.url });
      await admin.get(`/api/admin/v1/services/${service.id}`).expect(200);
      await admin.get('/api/admin/v1/services/3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f').expect(404);
      await admin.get('/api/admin/v1/services/not-a-uuid').expect(400);
    });
  });

  describe('apps and proxies', () => {
    let app: AppDto;
    let service: ServiceDto;
    let proxy: ProxyConnectionDto;

    beforeAll(async () => {
      service = ((await admin.get('/api/admin/v1/services').expect(200)).body as ServiceDto[]).find(
        (s) => s.type === 'radarr',
      ) as ServiceDto;
    });

    it('creates an app with a valid, unique slug', async () => {
      app = (
        await admin
          .post('/api/admin/v1/apps', { name: 'Notifiarr', slug: 'notifiarr', templateId: null, active: true })
          .expect(201)
      ).body as AppDto;
      expect(app).toMatchObject({
        name: 'Notifiarr',
        slug: 'notifiarr',
        templateId: null,
        active: true,
        proxyCount: 0,
      });
      await admin
        .post('/api/admin/v1/apps', { name: 'Other', slug: 'notifiarr', templateId: null, active: true })
        .expect(409);
      for (const slug of ['Notifiarr', '-x', 'a_b', 'a'.repeat(64), '']) {
        await admin.post('/api/admin/v1/apps', { name: 'Bad', slug, templateId: null, active: true }).expect(400);
      }
      await admin
        .post('/api/admin/v1/apps', {
          name: 'T',
          slug: 't',
          templateId: '3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f',
          active: true,
        })
        .expect(400);
      await admin.post('/api/admin/v1/apps', { name: 'T', slug: 't', active: true }).expect(400);
    });

    it('adds one proxy per service with a fresh key and the proxy URL', async () => {
      proxy = keep(await admin.post(`/api/admin/v1/apps/${app.id}/proxies`, { serviceId: service.id }).expect(201))
        .body as ProxyConnectionDto;
      expect(proxy).toMatchObject({
        appId: app.id,
        serviceId: service.id,
        active: true,
        proxyUrl: `${t.config.publicUrl}/proxy/notifiarr`,
      });
      expect(proxy.key).toMatch(/^[0-9a-f]{32}$/);
      await admin.post(`/api/admin/v1/apps/${app.id}/proxies`, { serviceId: service.id }).expect(409);
      await admin
        .post(`/api/admin/v1/apps/${app.id}/proxies`, { serviceId: '3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f' })
        .expect(404);
      expect((await admin.get(`/api/admin/v1/apps/${app.id}`).expect(200)).body).toMatchObject({ proxyCount: 1 });
      const details = keep(await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(200));
      expect(details.body).toMatchObject({ key: proxy.key, proxyUrl: proxy.proxyUrl });
      expect((await admin.get(`/api/admin/v1/apps/${app.id}/proxies`).expect(200)).body).toEqual([
        expect.objectContaining({ id: proxy.id }),
      ]);
    });

    it('rotates the key', async () => {
      const rotated = keep(await admin.post(`/api/admin/v1/proxies/${proxy.id}/rotate-key`).expect(200));
      expect(rotated.body.key).toMatch(/^[0-9a-f]{32}$/);
      expect(rotated.body.key).not.toBe(proxy.key);
      expect((await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(200)).body.key).toBe(rotated.body.key);
    });

    it('saves validated overrides and answers template / overrides / effective', async () => {
      const overrides = { '/api/v3/movie/{id}': ['put', 'get'], '/api/v3/calendar': [] };
      const saved = await admin
        .put(`/api/admin/v1/proxies/${proxy.id}/config`, { overrides, active: true })
        .expect(200);
      const { revisionId, ...allowlist } = saved.body as ProxyConfigSaveResponse;
      expect(allowlist).toEqual({
        template: {},
        overrides: { '/api/v3/calendar': [], '/api/v3/movie/{id}': ['get', 'put'] },
        effective: { '/api/v3/movie/{id}': ['get', 'put'] },
      });
      expect(revisionId).toMatch(/^[0-9a-f-]{36}$/);
      expect((await admin.get(`/api/admin/v1/proxies/${proxy.id}/allowlist`).expect(200)).body).toEqual(allowlist);
      for (const bad of [
        { '/api/v3/movie': ['GET'] },
        { '/api/v3/movie': ['fetch'] },
        { 'api/v3/movie': ['get'] },
        { '/api/v3/movie?x=1': ['get'] },
        { '/api/../x': ['get'] },
        { '/api/v3/movie': 'get' },
        { '/api/v3/movie/{id}': ['get'], '/api/v3/Movie/{movieId}': ['put'] },
      ]) {
        const refused = await admin
          .put(`/api/admin/v1/proxies/${proxy.id}/config`, { overrides: bad, active: true })
          .expect(400);
        expect(refused.body.message).toEqual([expect.stringContaining('overrides')]);
      }
      // Nothing of the refused saves was written.
      expect((await admin.get(`/api/admin/v1/proxies/${proxy.id}/allowlist`).expect(200)).body).toEqual(allowlist);
    });

    it('refuses to delete a service in use, naming the apps', async () => {
      const refused = await admin.delete(`/api/admin/v1/services/${service.id}`).expect(409);
      expect(refused.body.message).toContain('Notifiarr');
    });

    it('deletes proxies and apps, then the service', async () => {
      const patched = await admin.patch(`/api/admin/v1/proxies/${proxy.id}`, { active: false }).expect(200);
      expect(patched.body).toMatchObject({ id: proxy.id, active: false });
      await admin.delete(`/api/admin/v1/proxies/${proxy.id}`).expect(204);
      await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(404);
      await admin.patch(`/api/admin/v1/apps/${app.id}`, { active: false, name: 'Notifiarr (old)' }).expect(200);
      await admin.delete(`/api/admin/v1/apps/${app.id}`).expect(204);
      await admin.delete(`/api/admin/v1/services/${service.id}`).expect(204);
    });
  });

  describe('OpenAPI uploads', () => {
    it('stores a valid description and refuses an invalid one', async () => {
      const stored = await admin.put('/api/admin/v1/openapi/lidarr/v1', fakeOpenApi('v1', 'Lidarr')).expect(200);
      expect(stored.body).toMatchObject({ serviceType: 'lidarr', apiVersion: 'v1', source: 'upload', routes: 17 });
      await admin.put('/api/admin/v1/openapi/lidarr/v1', { hello: 'world' }).expect(400);
      await admin.put('/api/admin/v1/openapi/Lidarr/v1', fakeOpenApi('v1')).expect(400);
      await admin.put('/api/admin/v1/openapi/lidarr/1', fakeOpenApi('v1')).expect(400);
    });
  });

  it('never shows an upstream key in a response or a log line', () => {
    const text = responses.join('\n') + t.logs.join('');
    expect(responses.length).toBeGreaterThan(5);
    expect(text).not.toContain(radarr.options.apiKey);
    expect(text).not.toContain(sonarr.options.apiKey);
  });
});
