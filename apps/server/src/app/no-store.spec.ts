import type { ProxyConnectionDto } from '@arrbiter/contracts';
import type { FakeServarr } from '@arrbiter/tools/fake-servarr';
import type { Response } from 'supertest';
import { proxiedUpstream } from '../testing/proxied-upstream';
import { AdminClient, startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

/**
 * Answers that carry a key or a secret are never kept by a browser or a shared cache (security round 3,
 * item 12): every answer of the admin and auth API says `Cache-Control: no-store`.
 */
describe('Cache-Control: no-store on the admin and auth API', () => {
  let t: TestApp;
  let admin: AdminClient;
  let upstream: FakeServarr;
  let proxy: ProxyConnectionDto;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    ({ upstream, proxy } = await proxiedUpstream(admin, 'stored', 'Stored', { '/api/v3/movie': ['get'] }));
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
  });

  const noStore = (response: Response) =>
    expect([response.status, response.headers['cache-control']]).toEqual([response.status, 'no-store']);

  it('on the answers that carry a proxy key', async () => {
    noStore(await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(200));
    noStore(await admin.get(`/api/admin/v1/proxies/${proxy.id}/key`).expect(200));
    noStore(await admin.post(`/api/admin/v1/proxies/${proxy.id}/rotate-key`, {}).expect(200));
    noStore(await admin.get(`/api/admin/v1/apps/${proxy.appId}/proxies`).expect(200));
  });

  it('on a new proxy’s answer', async () => {
    const app = await admin
      .post('/api/admin/v1/apps', { name: 'Other', slug: 'other', templateId: null, active: true })
      .expect(201);
    noStore(
      await admin
        .post(`/api/admin/v1/apps/${(app.body as { id: string }).id}/proxies`, { serviceId: proxy.serviceId })
        .expect(201),
    );
  });

  it('on a new token’s answer', async () => {
    noStore(await admin.post('/api/admin/v1/tokens', { name: 'ci', role: 'viewer' }).expect(201));
  });

  it('on the configuration export with secrets', async () => {
    noStore(await admin.get('/api/admin/v1/config/export?secrets=true').expect(200));
  });

  it('on sign-in and the session', async () => {
    noStore(await t.http.post('/api/auth/sign-in').set('Origin', t.config.publicOrigin).send(TEST_ADMIN).expect(200));
    noStore(await admin.get('/api/auth/session').expect(200));
  });

  it('on refusals and errors too', async () => {
    noStore(await t.http.get(`/api/admin/v1/proxies/${proxy.id}/key`).expect(401));
    noStore(await admin.get('/api/admin/v1/no-such-route').expect(404));
  });

  it('leaves the dashboard, health and the API description to their own caching', async () => {
    expect((await t.http.get('/health')).headers['cache-control']).not.toBe('no-store');
    expect((await admin.get('/api/docs/openapi.json').expect(200)).headers['cache-control']).toBe('no-cache');
  });
});
