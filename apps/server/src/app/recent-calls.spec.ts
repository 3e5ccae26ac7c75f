import type { RecentCallDto, RecentCallsResponse } from '@arrbiter/contracts';
import { RecentCalls } from '@arrbiter/server/gateway';
import { eventually } from '@arrbiter/server/testing';
import { ProxiedUpstream, proxiedUpstream } from '../testing/proxied-upstream';
import { createSharedDatabase } from '../testing/shared-database';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

const OVERRIDES = { '/api/v3/movie': ['get'] };
const WRONG_KEY = 'f'.repeat(32);

/** "First calls, live": `GET /api/admin/v1/proxies/:id/recent-calls` (issue #37 §1). */
describe('a proxy’s recent calls', () => {
  let t: TestApp;
  let admin: AdminClient;
  let setup: ProxiedUpstream;

  const view = async (id = setup.proxy.id) =>
    (await admin.get(`/api/admin/v1/proxies/${id}/recent-calls`).expect(200)).body as RecentCallsResponse;
  const proxied = (path: string, key: string | null = setup.proxy.key) => {
    const request = t.http.get(`/proxy/${setup.app.slug}${path}`);
    return key === null ? request : request.set('X-Api-Key', key);
  };
  const summary = (items: RecentCallDto[]) => items.map((item) => `${item.outcome} ${item.status} ${item.path}`);

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    setup = await proxiedUpstream(admin, 'overseerr', 'Overseerr', OVERRIDES);
  });
  afterAll(async () => {
    await setup?.upstream.stop();
    await t.close();
  });

  it('records nothing before the view is opened; opening it arms the proxy for 10 minutes', async () => {
    await proxied('/api/v3/movie').expect(200);
    expect(t.app.get(RecentCalls).armed).toBe(false);
    const before = t.clock.now();
    const first = await view();
    expect(first.items).toEqual([]);
    expect(first.replicas).toBe(1);
    const until = Date.parse(first.armedUntil);
    expect(until).toBeGreaterThanOrEqual(before + 10 * 60_000);
    expect(until).toBeLessThanOrEqual(t.clock.now() + 10 * 60_000);
  });

  it('then shows every outcome, newest first: allowed, refused with its risk, 401 by slug, 429', async () => {
    await proxied(`/api/v3/movie?apikey=${setup.proxy.key}&page=2`, null).expect(200);
    await proxied('/api/v3/config/host').expect(403);
    await proxied(`/api/v3/movie?apikey=${WRONG_KEY}`, null).expect(401);
    await proxied('/api/v3/movie', null).expect(401);
    // Another app's 401s are not this one's.
    await t.http.get('/proxy/someone-else/api/v3/movie').set('X-Api-Key', WRONG_KEY).expect(401);
    await admin
      .put(`/api/admin/v1/proxies/${setup.proxy.id}/config`, {
        overrides: OVERRIDES,
        active: true,
        rateLimit: { perMinute: 1, burst: 1 },
      })
      .expect(200);
    await proxied('/api/v3/movie').expect(200);
    await proxied('/api/v3/movie').expect(429);

    let items: RecentCallDto[] = [];
    await eventually('the six calls are listed', async () => {
      items = (await view()).items;
      return items.length === 6;
    });
    expect(summary(items)).toEqual([
      'rate-limited 429 /api/v3/movie',
      'allowed 200 /api/v3/movie',
      'unauthorized 401 /api/v3/movie',
      'unauthorized 401 /api/v3/movie',
      'refused 403 /api/v3/config/host',
      'allowed 200 /api/v3/movie',
    ]);
    const refused = items.find((item) => item.outcome === 'refused');
    expect(refused).toMatchObject({ method: 'get', risk: { sensitive: true, purpose: 'settings' } });
    expect(items.find((item) => item.outcome === 'unauthorized')).toMatchObject({ route: null, risk: null });
    expect(items.find((item) => item.outcome === 'allowed')).toMatchObject({
      route: '/api/v3/movie',
      risk: { sensitive: false },
    });
    expect(items.every((item) => !Number.isNaN(Date.parse(item.at)))).toBe(true);
    // No query, and no part of any key, in any field.
    const text = JSON.stringify(items);
    expect(text).not.toContain('?');
    expect(text).not.toContain('page=2');
    for (const key of [setup.proxy.key, WRONG_KEY])
      for (let i = 0; i + 8 <= key.length; i += 8) expect(text).not.toContain(key.slice(i, i + 8));
  });

  it('ends 10 minutes after the last poll, and starts afresh when the view opens again', async () => {
    t.clock.advance(10 * 60_000 + 1_000);
    await admin
      .put(`/api/admin/v1/proxies/${setup.proxy.id}/config`, { overrides: OVERRIDES, active: true, rateLimit: null })
      .expect(200);
    await proxied('/api/v3/movie').expect(200);
    expect((await view()).items).toEqual([]);
  });

  it('answers 404 for an unknown proxy, 400 for an id that is not one, 401 signed out', async () => {
    await admin.get('/api/admin/v1/proxies/00000000-0000-4000-8000-000000000000/recent-calls').expect(404);
    await admin.get('/api/admin/v1/proxies/nope/recent-calls').expect(400);
    await t.http.get(`/api/admin/v1/proxies/${setup.proxy.id}/recent-calls`).expect(401);
  });
});

describe('a proxy’s recent calls on two replicas', () => {
  let shared: Awaited<ReturnType<typeof createSharedDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let adminA: AdminClient;
  let adminB: AdminClient;
  let setup: ProxiedUpstream;

  beforeAll(async () => {
    shared = await createSharedDatabase();
    [a, b] = await Promise.all([
      startTestApp({ ...shared.instanceEnv(), OPENAPI_SOURCES: 'none' }, shared),
      startTestApp({ ...shared.instanceEnv(), OPENAPI_SOURCES: 'none' }, shared),
    ]);
    [adminA, adminB] = await Promise.all([a.admin(), b.admin()]);
    setup = await proxiedUpstream(adminA, 'replicated', 'Replicated', OVERRIDES);
    await eventually(
      'B forwards with the new proxy',
      async () =>
        (await b.http.get(`/proxy/${setup.app.slug}/api/v3/movie`).set('X-Api-Key', setup.proxy.key)).status === 200,
    );
  });
  afterAll(async () => {
    await setup?.upstream.stop();
    await Promise.all([a?.close(), b?.close()]);
    await shared?.drop();
  });

  it('opening the view on A arms B; each lists what it saw, and says two replicas run', async () => {
    const opened = (await adminA.get(`/api/admin/v1/proxies/${setup.proxy.id}/recent-calls`).expect(200))
      .body as RecentCallsResponse;
    expect(opened.replicas).toBe(2);
    await eventually('B is armed', () => b.app.get(RecentCalls).armedUntil(setup.proxy.id) !== undefined);
    await b.http.get(`/proxy/${setup.app.slug}/api/v3/system/status`).set('X-Api-Key', setup.proxy.key).expect(403);
    let onB: RecentCallsResponse | undefined;
    await eventually('B lists the call', async () => {
      onB = (await adminB.get(`/api/admin/v1/proxies/${setup.proxy.id}/recent-calls`).expect(200))
        .body as RecentCallsResponse;
      return onB.items.length === 1;
    });
    expect(onB?.items[0]).toMatchObject({ outcome: 'refused', status: 403, path: '/api/v3/system/status' });
    expect(onB?.replicas).toBe(2);
    expect(
      (
        (await adminA.get(`/api/admin/v1/proxies/${setup.proxy.id}/recent-calls`).expect(200))
          .body as RecentCallsResponse
      ).items,
    ).toEqual([]);
  });
});
