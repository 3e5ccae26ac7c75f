import { Metrics } from '@arrbiter/server/metrics';
import { eventually, parsePrometheusText, PrometheusFamily, sumOf } from '@arrbiter/server/testing';
import { freePort } from '@arrbiter/tools/fake-servarr';
import { ProxiedUpstream, proxiedUpstream } from '../testing/proxied-upstream';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

const OVERRIDES = {
  '/api/v3/movie': ['get'],
  '/api/v3/test/slow': ['get'],
  '/api/v3/test/status/{code}': ['get'],
};
const WRONG_KEY = '0123456789abcdef0123456789abcdef';

describe('metrics (METRICS_PORT)', () => {
  let t: TestApp;
  let admin: AdminClient;
  let setup: ProxiedUpstream;
  let metricsUrl: string;

  const scrape = async () => {
    const response = await fetch(metricsUrl);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    return parsePrometheusText(await response.text());
  };
  const call = (path: string, key = setup.proxy.key) => t.http.get(`/proxy/metered${path}`).set('X-Api-Key', key);

  beforeAll(async () => {
    const port = await freePort();
    metricsUrl = `http://127.0.0.1:${port}/metrics`;
    t = await startTestApp({
      OPENAPI_SOURCES: 'none',
      UPSTREAM_TIMEOUT_MS: '300',
      METRICS_PORT: String(port),
      METRICS_HOST: '127.0.0.1',
    });
    admin = await t.admin();
    setup = await proxiedUpstream(admin, 'metered', 'Metered', OVERRIDES);
  });

  afterAll(async () => {
    await setup?.upstream.stop();
    await t?.close();
  });

  it('counts each outcome of a known sequence of calls exactly, with no path, key or query in a label', async () => {
    for (let i = 0; i < 3; i += 1) await call('/api/v3/movie?apikey=not-in-a-label&term=secret').expect(200);
    await call('/api/v3/test/status/404').expect(404);
    await call('/api/v3/config/host').expect(403);
    await call('/api/v3/config/host?q=1').expect(403);
    await call('/api/v3/movie/%2e%2e/config').expect(400);
    await call('/api/v3/movie', WRONG_KEY).expect(401);
    await call('/api/v3/movie', '').expect(401);
    await t.http.get('/proxy/').set('X-Api-Key', setup.proxy.key).expect(404);
    await call('/api/v3/test/slow?ms=5000').expect(504);
    const until = new Date(t.clock.now() + 3_600_000).toISOString();
    await admin.post(`/api/admin/v1/proxies/${setup.proxy.id}/learning`, { until }).expect(200);
    await call('/api/v3/system/status').expect(200);
    await admin.delete(`/api/admin/v1/proxies/${setup.proxy.id}/learning`).expect(200);
    await setup.upstream.stop();
    await call('/api/v3/movie').expect(502);
    // One call a minute: the first goes (and fails upstream), the second is refused by the limit.
    await admin
      .put(`/api/admin/v1/proxies/${setup.proxy.id}/config`, {
        overrides: OVERRIDES,
        active: true,
        rateLimit: { perMinute: 1, burst: 1 },
      })
      .expect(200);
    await call('/api/v3/movie').expect(502);
    await call('/api/v3/movie').expect(429);

    // Counted when each response closes, just after it was answered.
    let metrics = await scrape();
    await eventually('the 15 calls are counted', async () => {
      metrics = await scrape();
      return sumOf(metrics, 'arrbiter_proxy_requests_total') >= 15;
    });
    const requests = (where: Record<string, string>) => sumOf(metrics, 'arrbiter_proxy_requests_total', where);
    expect({
      forwarded: requests({ outcome: 'forwarded' }),
      learned: requests({ outcome: 'learned' }),
      forbidden: requests({ outcome: 'forbidden' }),
      'bad-path': requests({ outcome: 'bad-path' }),
      unauthorized: requests({ outcome: 'unauthorized' }),
      'upstream-timeout': requests({ outcome: 'upstream-timeout' }),
      'upstream-unreachable': requests({ outcome: 'upstream-unreachable' }),
      'rate-limited': requests({ outcome: 'rate-limited' }),
    }).toEqual({
      forwarded: 4,
      learned: 1,
      forbidden: 2,
      'bad-path': 1,
      unauthorized: 3,
      'upstream-timeout': 1,
      'upstream-unreachable': 2,
      'rate-limited': 1,
    });
    const service = setup.service.name;
    expect(requests({ app: 'metered', service, method: 'GET', outcome: 'forwarded', code: '200' })).toBe(3);
    expect(requests({ app: 'metered', service, outcome: 'forwarded', code: '404' })).toBe(1);
    // The slug of an unauthorized call is the caller's word: not a label.
    expect(requests({ app: '', service: '', outcome: 'unauthorized', code: '401' })).toBe(2);
    expect(requests({ app: '', service: '', outcome: 'unauthorized', code: '404' })).toBe(1);
    expect(requests({ code: '504' })).toBe(1);
    expect(requests({ code: '502' })).toBe(2);
    expect(requests({ app: 'metered', service, outcome: 'rate-limited', code: '429' })).toBe(1);

    // Each call is timed once, by outcome; the upstream's time for each call it answered.
    const duration = (outcome: string) =>
      sumOf(
        metrics,
        'arrbiter_proxy_request_duration_seconds',
        { outcome },
        'arrbiter_proxy_request_duration_seconds_count',
      );
    expect(duration('forwarded')).toBe(4);
    expect(duration('unauthorized')).toBe(3);
    expect(
      sumOf(metrics, 'arrbiter_upstream_duration_seconds', { service }, 'arrbiter_upstream_duration_seconds_count'),
    ).toBe(5);
    expect(sumOf(metrics, 'arrbiter_proxy_bytes_total', { service, direction: 'in' })).toBeGreaterThan(0);
    expect(sumOf(metrics, 'arrbiter_proxy_bytes_total', { service, direction: 'out' })).toBeGreaterThan(0);

    const proxyFamilies = [...metrics.values()].filter((family) => family.name.startsWith('arrbiter_'));
    const values = proxyFamilies.flatMap((family: PrometheusFamily) =>
      family.samples.flatMap((sample) => Object.entries(sample.labels)),
    );
    for (const [name, value] of values) {
      expect(value).not.toMatch(/[/?=&]/);
      expect(value).not.toContain(setup.proxy.key);
      expect(value).not.toMatch(/secret|not-in-a-label|config|movie/);
      if (name === 'app') expect(['', 'metered']).toContain(value);
    }
    // No app label on the histograms (there may be thousands of apps).
    for (const name of ['arrbiter_proxy_request_duration_seconds', 'arrbiter_upstream_duration_seconds'])
      expect(metrics.get(name)?.samples.every((sample) => !('app' in sample.labels))).toBe(true);
    expect(
      metrics
        .get('arrbiter_proxy_request_duration_seconds')
        ?.samples.filter((s) => s.labels['le'] !== undefined)
        .map((s) => s.labels['le'])
        .slice(0, 14),
    ).toEqual(['0.005', '0.01', '0.025', '0.05', '0.1', '0.25', '0.5', '1', '2.5', '5', '10', '30', '60', '+Inf']);
  });

  it('counts sign-ins by result, answers whether the database is up, and carries the build and process metrics', async () => {
    await t.http
      .post('/api/auth/sign-in')
      .set('Origin', t.config.publicOrigin)
      .send({ username: 'admin', password: 'wrong password here' })
      .expect(401);
    const metrics = await scrape();
    expect(sumOf(metrics, 'arrbiter_sign_ins_total', { result: 'failure' })).toBe(1);
    expect(sumOf(metrics, 'arrbiter_sign_ins_total', { result: 'success' })).toBe(1);
    expect(sumOf(metrics, 'arrbiter_sign_ins_total', { result: 'throttled' })).toBe(0);
    expect(sumOf(metrics, 'arrbiter_database_up')).toBe(1);
    expect(metrics.get('arrbiter_build_info')?.samples).toEqual([
      { name: 'arrbiter_build_info', labels: { version: expect.any(String) }, value: 1 },
    ]);
    expect(metrics.get('arrbiter_template_sync_total')?.type).toBe('counter');
    expect(metrics.get('arrbiter_state_reloads_total')?.type).toBe('counter');
    expect(metrics.has('process_cpu_user_seconds_total')).toBe(true);
    expect(metrics.has('nodejs_eventloop_lag_seconds')).toBe(true);
  });

  it('serves /metrics on its own port only', async () => {
    const publicPort = await t.http.get('/metrics');
    expect(publicPort.text ?? '').not.toContain('arrbiter_proxy_requests_total');
    expect((await fetch(metricsUrl.replace('/metrics', '/other'))).status).toBe(404);
  });
});

describe('metrics off (no METRICS_PORT, the default)', () => {
  it('provides no Metrics at all', async () => {
    const t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    try {
      expect(() => t.app.get(Metrics)).toThrow();
    } finally {
      await t.close();
    }
  });
});
