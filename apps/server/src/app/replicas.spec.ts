import type { ChangeDto, Page, ProxyConnectionDto, RotateKeyResponse } from '@arrbiter/contracts';
import { ChangeRelay } from '@arrbiter/server/database';
import { LearningDeadlines } from '@arrbiter/server/proxies';
import { RepositorySettingsService } from '@arrbiter/server/template-sync';
import { eventually, parsePrometheusText, sumOf } from '@arrbiter/server/testing';
import { Client } from 'pg';
import { freePort } from '@arrbiter/tools/fake-servarr';
import { ProxiedUpstream, proxiedUpstream } from '../testing/proxied-upstream';
import { createSharedDatabase } from '../testing/shared-database';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

const OVERRIDES = { '/api/v3/movie': ['get'] };

describe('two replicas on one PostgreSQL database', () => {
  let shared: Awaited<ReturnType<typeof createSharedDatabase>>;
  let a: TestApp;
  let b: TestApp;
  let adminA: AdminClient;
  let adminB: AdminClient;
  let setup: ProxiedUpstream;
  let key: string;
  /** B's metrics. */
  let metricsUrl: string;

  /** The status of `GET /api/v3/movie` through a replica with this key. */
  const status = async (replica: TestApp, withKey: string) =>
    (await replica.http.get(`/proxy/${setup.app.slug}/api/v3/movie`).set('X-Api-Key', withKey)).status;

  beforeAll(async () => {
    shared = await createSharedDatabase();
    // Started together: migrations and the first administrator are made once, under advisory locks.
    const metricsPort = await freePort();
    metricsUrl = `http://127.0.0.1:${metricsPort}/metrics`;
    [a, b] = await Promise.all([
      startTestApp({ ...shared.instanceEnv(), OPENAPI_SOURCES: 'none' }, shared),
      startTestApp(
        {
          ...shared.instanceEnv(),
          OPENAPI_SOURCES: 'none',
          METRICS_PORT: String(metricsPort),
          METRICS_HOST: '127.0.0.1',
        },
        shared,
      ),
    ]);
    [adminA, adminB] = await Promise.all([a.admin(), b.admin()]);
  });

  afterAll(async () => {
    await setup?.upstream.stop();
    await Promise.all([a?.close(), b?.close()]);
    await shared?.drop();
  });

  it('start together: one set of migrations, one first administrator', async () => {
    const client = new Client({ connectionString: shared.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ n: string }>('SELECT count(*) AS n FROM admin_user');
      expect(Number(rows[0].n)).toBe(1);
    } finally {
      await client.end();
    }
    expect(a.app.get(ChangeRelay).ready && b.app.get(ChangeRelay).ready).toBe(true);
    await b.http.get('/health/ready').expect(200);
  });

  it('a proxy created on A works on B', async () => {
    setup = await proxiedUpstream(adminA, 'replicated', 'Replicated', OVERRIDES);
    key = setup.proxy.key;
    expect(await status(a, key)).toBe(200);
    await eventually('B forwards with the new proxy', async () => (await status(b, key)) === 200);
  });

  it('a key rotated on A is refused on B, and the new key works there', async () => {
    const rotated = (await adminA.post(`/api/admin/v1/proxies/${setup.proxy.id}/rotate-key`).expect(200)).body as {
      key: string;
    };
    expect(await status(a, key)).toBe(401);
    await eventually('B refuses the old key', async () => (await status(b, key)) === 401);
    expect(await status(b, rotated.key)).toBe(200);
    key = rotated.key;
  });

  it('a key rotated on A with a grace period works on both until B ends it, and its uses add up', async () => {
    const old = key;
    const rotated = (await adminA.post(`/api/admin/v1/proxies/${setup.proxy.id}/rotate-key`, { graceMinutes: 60 }))
      .body as RotateKeyResponse;
    expect(rotated.previousKeyValidUntil).not.toBeNull();
    await eventually('B forwards with the new key', async () => (await status(b, rotated.key)) === 200);
    // Three calls with the old key: two on A, one on B.
    expect([await status(a, old), await status(b, old), await status(a, old)]).toEqual([200, 200, 200]);
    await eventually('both replicas have written their counts', async () => {
      const proxy = (await adminB.get(`/api/admin/v1/proxies/${setup.proxy.id}`).expect(200))
        .body as ProxyConnectionDto;
      return proxy.previousKey?.uses === 3;
    });
    await adminB.delete(`/api/admin/v1/proxies/${setup.proxy.id}/previous-key`).expect(204);
    expect(await status(b, old)).toBe(401);
    await eventually('A refuses the old key', async () => (await status(a, old)) === 401);
    expect(await status(a, rotated.key)).toBe(200);
    key = rotated.key;
  });

  it('a proxy deactivated on B is refused on A', async () => {
    await adminB.patch(`/api/admin/v1/proxies/${setup.proxy.id}`, { active: false }).expect(200);
    expect(await status(b, key)).toBe(401);
    await eventually('A refuses the deactivated proxy', async () => (await status(a, key)) === 401);
  });

  it("a change made while B's listener is cut off reaches B after it reconnects", async () => {
    const relay = b.app.get(ChangeRelay);
    const client = new Client({ connectionString: shared.url });
    await client.connect();
    try {
      const { rows } = await client.query<{ ended: boolean }>(
        'SELECT pg_terminate_backend(pid) AS ended FROM pg_stat_activity WHERE application_name = $1',
        [relay.applicationName],
      );
      expect(rows).toEqual([{ ended: true }]);
    } finally {
      await client.end();
    }
    await eventually('B notices that its listener is gone', () => !relay.connected);
    // Visible in the metrics while it lasts.
    expect(
      sumOf(parsePrometheusText(await (await fetch(metricsUrl)).text()), 'arrbiter_state_listener_connected'),
    ).toBe(0);
    // The outage lasts at least the first back-off (0.5 s): this change is announced to nobody on B.
    await adminA.patch(`/api/admin/v1/proxies/${setup.proxy.id}`, { active: true }).expect(200);
    expect(await status(a, key)).toBe(200);
    await eventually('B reconnects and reloads', async () => relay.connected && (await status(b, key)) === 200);
    const metrics = parsePrometheusText(await (await fetch(metricsUrl)).text());
    expect(sumOf(metrics, 'arrbiter_state_reloads_total', { kind: 'full', trigger: 'reconnect' })).toBe(1);
    expect(sumOf(metrics, 'arrbiter_state_listener_connected')).toBe(1);
  });

  it('a settings change on A reaches the template sync scheduler of B', async () => {
    let replanned = 0;
    const stop = b.app.get(RepositorySettingsService).onChange(() => (replanned += 1));
    try {
      await adminA
        .put('/api/admin/v1/settings/template-repository', { url: '', ref: '', path: '', intervalMinutes: 0 })
        .expect(200);
      await eventually('B replans', () => replanned > 0);
    } finally {
      stop();
    }
  });

  it('a learning deadline that passes on both replicas is ended, and recorded, once', async () => {
    const until = new Date(a.clock.now() + 60_000).toISOString();
    await adminA.post(`/api/admin/v1/proxies/${setup.proxy.id}/learning`, { until }).expect(200);
    a.clock.advance(120_000);
    b.clock.advance(120_000);
    // Both replicas' deadline timers at once: each runs the conditional UPDATE … RETURNING.
    await Promise.all([a.app.get(LearningDeadlines).check(), b.app.get(LearningDeadlines).check()]);
    const changes = (await adminB.get(`/api/admin/v1/changes?objectId=${setup.proxy.id}&limit=100`).expect(200))
      .body as Page<ChangeDto>;
    expect(changes.items.filter((change) => change.action === 'proxy.learning-ended')).toHaveLength(1);
    const proxy = (await adminB.get(`/api/admin/v1/proxies/${setup.proxy.id}`).expect(200))
      .body as ProxyConnectionDto & { learningUntil: string | null };
    expect(proxy.learningUntil).toBeNull();
  });

  it('share the sign-in throttle: together they allow no more failed attempts than one', async () => {
    const attempt = (replica: TestApp) =>
      replica.http
        .post('/api/auth/sign-in')
        .set('Origin', replica.config.publicOrigin)
        .send({ username: 'mallory', password: 'not the password at all' });
    const statuses: number[] = [];
    for (let i = 0; i < 12; i += 1) statuses.push((await attempt(i % 2 === 0 ? a : b)).status);
    expect(statuses.filter((s) => s === 401)).toHaveLength(5);
    expect(statuses.slice(5)).toEqual(Array(7).fill(429));
  });
});
