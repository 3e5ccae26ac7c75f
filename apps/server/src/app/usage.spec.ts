import type { ProxyUsageResponse, UsageOverviewResponse } from '@arrbiter/contracts';
import { eventually, usageTotals as total } from '@arrbiter/server/testing';
import { USAGE_RETENTION_LOCK } from '@arrbiter/server/database';
import { UsageRecorder, UsageRetention } from '@arrbiter/server/usage';
import { DataSource } from 'typeorm';
import { ProxiedUpstream, proxiedUpstream, ungrantedProxy } from '../testing/proxied-upstream';
import { createSharedDatabase } from '../testing/shared-database';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

const HOUR = 3_600_000;
const DAY = 24 * HOUR;
const OVERRIDES = {
  '/api/v3/movie': ['get'],
  '/api/v3/movie/{id}': ['get'],
  '/api/v3/test/status/{code}': ['get'],
  '/api/v3/test/slow': ['get'],
};
const WRONG_KEY = '0123456789abcdef0123456789abcdef';

describe('usage counters', () => {
  let t: TestApp;
  let admin: AdminClient;
  let setup: ProxiedUpstream;

  const call = (path: string, method: 'get' | 'delete' = 'get', key = setup.proxy.key) =>
    t.http[method](`/proxy/counted${path}`).set('X-Api-Key', key);
  const usage = async (query = '') =>
    (await admin.get(`/api/admin/v1/proxies/${setup.proxy.id}/usage${query}`).expect(200)).body as ProxyUsageResponse;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none', UPSTREAM_TIMEOUT_MS: '300' });
    admin = await t.admin();
    setup = await proxiedUpstream(admin, 'counted', 'Counted', OVERRIDES);
  });
  afterAll(async () => {
    await setup?.upstream.stop();
    await t?.close();
  });

  it('counts forwarded, refused and failed calls per hour, and each method and route, and answers with them at once', async () => {
    for (let i = 0; i < 3; i += 1) await call('/api/v3/movie?term=x').expect(200);
    await call('/api/v3/movie/42').expect(200);
    await call('/api/v3/test/status/503').expect(503);
    await call('/api/v3/test/slow?ms=3000').expect(504);
    await call('/api/v3/test/status/404').expect(404);
    await call('/api/v3/config/host').expect(403);
    await call('/api/v3/movie/1', 'delete').expect(403);
    await call('/api/v3/movie/%2e%2e/config').expect(400);
    // Not the proxy's key: not this proxy's call.
    await call('/api/v3/movie', 'get', WRONG_KEY).expect(401);

    // The answer writes what this replica counted first: no waiting for the write-behind.
    let answer = await usage();
    await eventually('the last call is counted', async () => {
      answer = await usage();
      return total(answer.buckets).refused === 3;
    });
    expect(answer.buckets).toHaveLength(24);
    const current = answer.buckets[23];
    expect(current.start).toBe(new Date(Math.floor(t.clock.now() / HOUR) * HOUR).toISOString());
    expect(current).toMatchObject({ forwarded: 7, refused: 3, errors: 2 });
    expect(answer.buckets.slice(0, 23).every((b) => b.forwarded + b.refused + b.errors === 0)).toBe(true);
    const routes = answer.routes.map((r) => [r.method, r.route, r.count]);
    expect(routes[0]).toEqual(['get', '/api/v3/movie', 3]);
    expect(routes).toEqual(
      expect.arrayContaining([
        ['get', '/api/v3/movie/{id}', 1],
        ['get', '/api/v3/test/status/{code}', 2],
        ['get', '/api/v3/test/slow', 1],
        ['get', '/api/v3/config/host', 1],
        ['delete', '/api/v3/movie/{id}', 1],
      ]),
    );
    expect(routes).toHaveLength(6);
    for (const route of answer.routes) expect(Date.parse(route.lastSeen)).toBeLessThanOrEqual(t.clock.now());
  });

  it('keeps each hour in its own bucket, and the totals per app and per service', async () => {
    const before = total((await usage()).buckets);
    t.clock.advance(HOUR);
    admin = await t.admin();
    await call('/api/v3/movie').expect(200);
    await call('/api/v3/system/backup').expect(403);
    let answer = await usage(`?from=${new Date(t.clock.now() - 2 * HOUR).toISOString()}`);
    await eventually('the calls of the new hour are counted', async () => {
      answer = await usage(`?from=${new Date(t.clock.now() - 2 * HOUR).toISOString()}`);
      return total(answer.buckets).refused === before.refused + 1;
    });
    // Two hours back, rounded down to the hour: three buckets, the last two with calls.
    expect(answer.buckets).toHaveLength(3);
    expect(answer.buckets[2]).toMatchObject({ forwarded: 1, refused: 1, errors: 0 });
    expect(answer.buckets[1]).toMatchObject(before);

    const overview = (await admin.get('/api/admin/v1/usage').expect(200)).body as UsageOverviewResponse;
    expect(overview.buckets).toHaveLength(24);
    expect(total(overview.buckets)).toEqual({
      forwarded: before.forwarded + 1,
      refused: before.refused + 1,
      errors: before.errors,
    });
    expect(overview.apps).toEqual([
      { appId: setup.app.id, name: 'Counted', slug: 'counted', ...total(overview.buckets) },
    ]);
    expect(overview.services).toEqual([
      { serviceId: setup.service.id, name: setup.service.name, type: 'radarr', ...total(overview.buckets) },
    ]);
  });

  it('checks from and to: a bad date, a date and time without its zone, an empty or reversed or too long period', async () => {
    const path = `/api/admin/v1/proxies/${setup.proxy.id}/usage`;
    const now = t.clock.now();
    const iso = (ms: number) => new Date(ms).toISOString();
    const cases: [string, RegExp][] = [
      ['?from=yesterday', /^from must be an ISO 8601 date/],
      ['?to=2026-02-30T00:00:00Z', /^to must be an ISO 8601 date/],
      ['?from=2026-W01-1', /^from must be an ISO 8601 date.*week/],
      ['?from=2026-01-01T10:00', /^from must give its time zone/],
      [`?from=${iso(now)}&to=${iso(now)}`, /^from must be before to$/],
      [`?from=${iso(now)}&to=${iso(now - HOUR)}`, /^from must be before to$/],
      [`?from=${iso(now - 91 * DAY)}`, /^from and to may be at most 90 days apart$/],
      ['?from=2026-01-01&extra=1', /^property extra should not exist$/],
    ];
    for (const [query, message] of cases) {
      const response = await admin.get(`${path}${query}`).expect(400);
      expect([query, (response.body as { message: string[] }).message]).toEqual([
        query,
        [expect.stringMatching(message)],
      ]);
    }
    expect((await admin.get(`${path}?from=${iso(now - 90 * DAY)}`).expect(200)).body.buckets).toHaveLength(90 * 24 + 1);
    await admin.get('/api/admin/v1/proxies/3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f/usage').expect(404);
    await admin.get('/api/admin/v1/proxies/not-a-uuid/usage').expect(400);
    await admin.get('/api/admin/v1/usage?to=soon').expect(400);
    await t.http.get(path).expect(401);
    await t.http.get('/api/admin/v1/usage').expect(401);
  });

  it('deletes counters older than USAGE_RETENTION_DAYS (90), one replica at a time, and keeps the newer ones', async () => {
    const retention = t.app.get(UsageRetention);
    expect(await retention.purge()).toEqual({ hours: 0, routes: 0, unauthorized: 0 });
    // Another replica purging (holding the lock): this one leaves the work to it.
    const other = t.app.get(DataSource).createQueryRunner();
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [USAGE_RETENTION_LOCK]);
      expect(await retention.purge()).toBeNull();
      await other.query('SELECT pg_advisory_unlock($1)', [USAGE_RETENTION_LOCK]);
    } finally {
      await other.release();
    }
    t.clock.advance(90 * DAY);
    admin = await t.admin();
    await call('/api/v3/movie').expect(200);
    await t.app.get(UsageRecorder).flush();
    // 90 days after the first hour: only the first hour is past retention (with its 401, of the wrong key).
    expect(await retention.purge()).toEqual({ hours: 1, routes: 6, unauthorized: 1 });
    const all = `?from=${new Date(t.clock.now() - 90 * DAY).toISOString()}`;
    const answer = await usage(all);
    expect(total(answer.buckets)).toEqual({ forwarded: 2, refused: 1, errors: 0 });
    expect(answer.routes.map((r) => [r.method, r.route, r.count])).toEqual(
      expect.arrayContaining([
        ['get', '/api/v3/movie', 2],
        ['get', '/api/v3/system/backup', 1],
      ]),
    );
  });

  it('writes the counts of the other proxies when one of those counted was deleted before the write', async () => {
    const before = total((await usage()).buckets);
    const other = await proxiedUpstream(admin, 'deleted-soon', 'Deleted soon', OVERRIDES);
    try {
      // Both counted in memory; the usage answer below writes them (the write-behind runs every 5 s).
      await t.http.get('/proxy/deleted-soon/api/v3/movie').set('X-Api-Key', other.proxy.key).expect(200);
      await call('/api/v3/movie').expect(200);
      await admin.delete(`/api/admin/v1/proxies/${other.proxy.id}`).expect(204);
      // Its counts are left out; the rest is written in the same transaction (a foreign key would fail it whole).
      expect(total((await usage()).buckets)).toEqual({ ...before, forwarded: before.forwarded + 1 });
    } finally {
      await other.upstream.stop();
    }
  });

  it('counts nothing with USAGE_COUNTING=false, and still answers', async () => {
    const off = await startTestApp({ OPENAPI_SOURCES: 'none', USAGE_COUNTING: 'false' });
    try {
      const offAdmin = await off.admin();
      const offSetup = await proxiedUpstream(offAdmin, 'uncounted', 'Uncounted', OVERRIDES);
      try {
        await off.http.get('/proxy/uncounted/api/v3/movie').set('X-Api-Key', offSetup.proxy.key).expect(200);
        await off.http.get('/proxy/uncounted/api/v3/config/host').set('X-Api-Key', offSetup.proxy.key).expect(403);
        const answer = (await offAdmin.get(`/api/admin/v1/proxies/${offSetup.proxy.id}/usage`).expect(200))
          .body as ProxyUsageResponse;
        expect(total(answer.buckets)).toEqual({ forwarded: 0, refused: 0, errors: 0 });
        expect(answer.routes).toEqual([]);
      } finally {
        await offSetup.upstream.stop();
      }
    } finally {
      await off.close();
    }
  });
});

describe('usage counters of two replicas on one database', () => {
  it('add up: each replica adds its counts to the same rows', async () => {
    const shared = await createSharedDatabase();
    let a: TestApp | undefined;
    let b: TestApp | undefined;
    let setup: ProxiedUpstream | undefined;
    try {
      [a, b] = await Promise.all([
        startTestApp({ ...shared.instanceEnv(), OPENAPI_SOURCES: 'none' }, shared),
        startTestApp({ ...shared.instanceEnv(), OPENAPI_SOURCES: 'none' }, shared),
      ]);
      const adminA = await a.admin();
      setup = await ungrantedProxy(adminA, 'shared', 'Shared');
      const { key, id } = setup.proxy;
      const replicaB = b;
      // B knows the new proxy before its allowlist: its calls are refused then, and counted as refused
      // (before B knows the proxy at all, a call is a 401 that no proxy counts).
      let refusedWhileWaiting = 0;
      const bAnswers = async (expected: number) => {
        const status = (await replicaB.http.get('/proxy/shared/api/v3/movie').set('X-Api-Key', key)).status;
        if (status === 403) refusedWhileWaiting += 1;
        return status === expected;
      };
      await eventually('replica B knows the proxy', () => bAnswers(403));
      await adminA
        .put(`/api/admin/v1/proxies/${id}/config`, { overrides: { '/api/v3/movie': ['get'] }, active: true })
        .expect(200);
      await eventually('replica B knows its allowlist', () => bAnswers(200));
      expect(refusedWhileWaiting).toBeGreaterThanOrEqual(1);
      const through = async (replica: TestApp, calls: number) => {
        for (let i = 0; i < calls; i += 1)
          await replica.http.get('/proxy/shared/api/v3/movie').set('X-Api-Key', key).expect(200);
        await replica.http.get('/proxy/shared/api/v3/config/host').set('X-Api-Key', key).expect(403);
      };
      await Promise.all([through(a, 5), through(b, 4)]);
      // Both write the same hour's row and the same route's row, at once.
      await Promise.all([a.app.get(UsageRecorder).flush(), b.app.get(UsageRecorder).flush()]);
      await through(b, 2);
      await b.app.get(UsageRecorder).flush();
      const answer = (await adminA.get(`/api/admin/v1/proxies/${id}/usage`).expect(200)).body as ProxyUsageResponse;
      // B's calls in the waits above counted too: the last one forwarded, the 403s before it refused.
      expect(total(answer.buckets)).toEqual({ forwarded: 12, refused: 3 + refusedWhileWaiting, errors: 0 });
      expect(answer.routes.map((r) => [r.method, r.route, r.count])).toEqual([
        ['get', '/api/v3/movie', 12 + refusedWhileWaiting],
        ['get', '/api/v3/config/host', 3],
      ]);
    } finally {
      await setup?.upstream.stop();
      await Promise.all([a?.close(), b?.close()]);
      await shared.drop();
    }
  });
});
