import type {
  Page,
  ProblemDetails,
  ProxyConnectionDto,
  ProxyDefaults,
  ServiceDto,
  WarningDto,
} from '@arrbiter/contracts';
import type { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { proxiedUpstream } from '../testing/proxied-upstream';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';
import { seedProxy, eventually } from '@arrbiter/server/testing';

const OVERRIDES = { '/api/v3/movie': ['get'], '/api/v3/test/release': ['get'] };

/** Per-proxy rate limits (429, per replica) and the scrubbing opt-out, and the defaults new proxies get. */
describe('proxy rate limits and scrubbing settings', () => {
  let t: TestApp;
  let admin: AdminClient;
  let base: string;
  let upstream: FakeServarr;
  let service: ServiceDto;
  let proxy: ProxyConnectionDto;

  const call = (slug: string, key: string, path = '/api/v3/movie') =>
    rawRequest(base, 'GET', `/proxy/${slug}${path}`, { 'x-api-key': key });

  const config = (id: string, extra: Record<string, unknown>) =>
    admin.put(`/api/admin/v1/proxies/${id}/config`, { overrides: OVERRIDES, active: true, ...extra });

  /** A second app with an active proxy on the same service. */
  async function otherProxy(slug: string): Promise<ProxyConnectionDto> {
    return (
      await seedProxy(admin, { service, app: { name: slug, slug }, config: { overrides: OVERRIDES, active: true } })
    ).proxy;
  }

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    base = await t.listen();
    ({ upstream, service, proxy } = await proxiedUpstream(admin, 'bazarr', 'Bazarr', OVERRIDES));
  });
  afterAll(async () => {
    await upstream.stop();
    await t.close();
  });

  it('refuses exactly the calls beyond the burst with 429 and Retry-After; other proxies are unaffected', async () => {
    await config(proxy.id, { rateLimit: { perMinute: 6, burst: 3 } }).expect(200);
    const other = await otherProxy('lunasea');
    const statuses: number[] = [];
    for (let i = 0; i < 5; i += 1) statuses.push((await call('bazarr', proxy.key)).status);
    expect(statuses).toEqual([200, 200, 200, 429, 429]);
    const refused = await call('bazarr', proxy.key);
    expect(refused.headers['retry-after']).toBe('10');
    expect(refused.headers['content-type']).toMatch(/^application\/problem\+json/);
    expect(refused.json<ProblemDetails>()).toMatchObject({ status: 429, title: 'Too Many Requests' });
    for (let i = 0; i < 5; i += 1) expect((await call('lunasea', other.key)).status).toBe(200);
    const line = t.logs.flatMap((chunk) => chunk.split('\n')).find((l) => l.includes('"outcome":"rate-limited"'));
    expect(line).toBeDefined();
    // Counted on the Warnings page, one row per proxy and method, and not grantable.
    let rows: WarningDto[] = [];
    await eventually('the refusals are counted as a warning', async () => {
      rows = (
        (await admin.get(`/api/admin/v1/warnings?proxyId=${proxy.id}&status=rate-limited`).expect(200))
          .body as Page<WarningDto>
      ).items;
      return rows.length > 0;
    });
    expect(rows).toHaveLength(1);
    // It stands for every path of the method, so it names no known client that makes a call.
    expect(rows[0]).toMatchObject({ method: 'get', status: 'rate-limited', count: 3, knownCallers: [] });
    await admin.post(`/api/admin/v1/warnings/${rows[0].id}/grant`).expect(409);
    // Lifted: at once.
    await config(proxy.id, { rateLimit: null }).expect(200);
    expect((await call('bazarr', proxy.key)).status).toBe(200);
    expect((await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(200)).body).toMatchObject({
      rateLimit: null,
      scrub: true,
    });
  });

  it('lets the next call through once the Retry-After it gave has passed', async () => {
    await config(proxy.id, { rateLimit: { perMinute: 60, burst: 1 } }).expect(200);
    expect((await call('bazarr', proxy.key)).status).toBe(200);
    const refused = await call('bazarr', proxy.key);
    expect(refused.status).toBe(429);
    expect(refused.headers['retry-after']).toBe('1');
    // The limiter reads the server's clock: moved on by the Retry-After instead of waiting it out.
    t.clock.advance(Number(refused.headers['retry-after']) * 1000);
    expect((await call('bazarr', proxy.key)).status).toBe(200);
    await config(proxy.id, { rateLimit: null }).expect(200);
  });

  it('refuses a malformed rate limit or scrub flag with 400, changing nothing', async () => {
    for (const bad of [
      { rateLimit: { perMinute: 0, burst: 1 } },
      { rateLimit: { perMinute: 10 } },
      { rateLimit: { perMinute: 10.5, burst: 1 } },
      { rateLimit: { perMinute: 10, burst: 100_000 } },
      { rateLimit: 'fast' },
      { scrub: 'yes' },
    ])
      await config(proxy.id, bad).expect(400);
    expect((await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(200)).body).toMatchObject({
      rateLimit: null,
      scrub: true,
    });
  });

  it('passes responses raw when scrubbing is off for the proxy', async () => {
    const scrubbed = await call('bazarr', proxy.key, '/api/v3/test/release');
    expect(scrubbed.text).not.toContain(upstream.options.apiKey);
    await config(proxy.id, { scrub: false }).expect(200);
    const raw = await call('bazarr', proxy.key, '/api/v3/test/release');
    expect(raw.text).toContain(upstream.options.apiKey);
    await config(proxy.id, { scrub: true }).expect(200);
    expect((await call('bazarr', proxy.key, '/api/v3/test/release')).text).not.toContain(upstream.options.apiKey);
  });

  it('gives new proxies the defaults from settings', async () => {
    expect((await admin.get('/api/admin/v1/settings/proxy-defaults').expect(200)).body).toEqual({
      rateLimit: null,
      scrub: true,
    });
    const defaults: ProxyDefaults = { rateLimit: { perMinute: 120, burst: 20 }, scrub: false };
    expect((await admin.put('/api/admin/v1/settings/proxy-defaults', defaults).expect(200)).body).toEqual(defaults);
    await admin
      .put('/api/admin/v1/settings/proxy-defaults', { rateLimit: { perMinute: -1, burst: 1 }, scrub: true })
      .expect(400);
    await admin.put('/api/admin/v1/settings/proxy-defaults', { scrub: true }).expect(400);
    const created = await otherProxy('homepage');
    expect(created).toMatchObject(defaults);
    expect((await admin.get(`/api/admin/v1/proxies/${created.id}`).expect(200)).body).toMatchObject(defaults);
    // Existing proxies keep theirs.
    expect((await admin.get(`/api/admin/v1/proxies/${proxy.id}`).expect(200)).body).toMatchObject({ scrub: true });
  });
});
