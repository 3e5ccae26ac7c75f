import { randomBytes } from 'node:crypto';
import type { Page, WarningDto } from '@arrbiter/contracts';
import { WARNING_RETENTION_LOCK } from '@arrbiter/server/database';
import { eventually } from '@arrbiter/server/testing';
import { WarningRecorder, WarningRetention } from '@arrbiter/server/warnings';
import { DataSource } from 'typeorm';
import { ProxiedUpstream, proxiedUpstream } from '../testing/proxied-upstream';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

/** One proxy key holder cannot fill the disk with access warnings: paths fold into bounded shapes, rows are capped. */
describe('access warnings stay bounded', () => {
  let t: TestApp;
  let admin: AdminClient;
  let base: string;
  let setup: ProxiedUpstream;
  let fold: ProxiedUpstream;

  const refused = (path: string, proxy = setup) =>
    rawRequest(base, 'GET', `/proxy/${proxy.app.slug}${path}`, { 'x-api-key': proxy.proxy.key });
  const rowsOf = async (proxyId: string) => {
    const [{ n }] = (await t.app
      .get(DataSource)
      .query('SELECT count(*)::int AS n FROM access_warning WHERE proxy_id = $1', [proxyId])) as { n: number }[];
    return n;
  };
  /** Every warning of a proxy, through the API (pages of 100). */
  const warningsOf = async (proxyId: string) => {
    const all: WarningDto[] = [];
    let cursor: string | null = null;
    do {
      const page = (
        await admin
          .get(`/api/admin/v1/warnings?proxyId=${proxyId}&limit=100${cursor ? `&cursor=${cursor}` : ''}`)
          .expect(200)
      ).body as Page<WarningDto>;
      all.push(...page.items);
      cursor = page.nextCursor;
    } while (cursor);
    return all;
  };
  const found = (rows: WarningDto[]) => {
    expect(rows).toHaveLength(1);
    return rows[0];
  };
  const tableBytes = async () => {
    const [{ bytes }] = (await t.app
      .get(DataSource)
      .query(`SELECT pg_total_relation_size('access_warning')::bigint AS bytes`)) as { bytes: string }[];
    return Number(bytes);
  };

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    base = await t.listen();
    setup = await proxiedUpstream(admin, 'flood', 'Flood', { '/api/v3/movie': ['get'] });
    fold = await proxiedUpstream(admin, 'fold', 'Fold', { '/api/v3/movie': ['get'] });
  });
  afterAll(async () => {
    await setup?.upstream.stop();
    await fold?.upstream.stop();
    await t?.close();
  });

  it('keeps at most 200 rows and an "other paths" row per proxy, and the table small, when 3,000 distinct 2 KB paths are refused', async () => {
    const before = await tableBytes();
    // Incompressible (2,000 random characters each), so that the table's size tells what is kept.
    const paths = Array.from({ length: 3000 }, (_, i) => `/api/v3/p${i}/${randomBytes(1500).toString('base64url')}`);
    for (let i = 0; i < paths.length; i += 25) {
      const responses = await Promise.all(paths.slice(i, i + 25).map((path) => refused(path)));
      for (const response of responses) expect(response.status).toBe(403);
    }
    // A flush running when the last call came in leaves it to the next one.
    await t.app.get(WarningRecorder).flush();
    await t.app.get(WarningRecorder).flush();
    expect((await tableBytes()) - before).toBeLessThan(2 * 1024 * 1024);
    expect(await rowsOf(setup.proxy.id)).toBeLessThanOrEqual(201);
    // Exactly: 200 rows, and every other call counted in the "other paths" row.
    const rows = await warningsOf(setup.proxy.id);
    expect(rows).toHaveLength(201);
    expect(rows.reduce((sum, w) => sum + w.count, 0)).toBe(3000);
    const other = found(rows.filter((w) => w.otherPaths));
    expect(other).toMatchObject({ method: '*', route: null, shape: null, count: 2800, status: 'open' });
    expect(other.path.length).toBeLessThanOrEqual(512);
    for (const w of rows.filter((r) => !r.otherPaths)) {
      expect(w.shape).toMatch(/^\/api\/v3\/p\d+\/\{id\}$/);
      expect(w.path.length).toBeLessThanOrEqual(512);
    }
    // Refused again: the known rows count it, a new path goes to "other paths", no row is added.
    expect((await refused(`/api/v3/p9999/${'n'.repeat(40)}`)).status).toBe(403);
    await t.app.get(WarningRecorder).flush();
    expect(await rowsOf(setup.proxy.id)).toBe(201);
  });

  it('never grants the "other paths" row, in any scope, and still dismisses it', async () => {
    const other = found((await warningsOf(setup.proxy.id)).filter((w) => w.otherPaths));
    for (const body of [{}, { scope: 'path' }, { scope: 'shape' }]) {
      const refusal = await admin.post(`/api/admin/v1/warnings/${other.id}/grant`, body).expect(409);
      expect((refusal.body as { message: string }).message).toMatch(/other-paths row .* cannot be granted/);
    }
    await admin.post(`/api/admin/v1/warnings/${other.id}/grant`, { scope: 'everything' }).expect(400);
    await admin.post(`/api/admin/v1/warnings/${other.id}/dismiss`).expect(200);
    // The calls refused past the cap keep being counted in it, and it stays dismissed.
    expect((await refused(`/api/v3/p10000/x`)).status).toBe(403);
    await t.app.get(WarningRecorder).flush();
    const after = found((await warningsOf(setup.proxy.id)).filter((w) => w.otherPaths));
    expect(after).toMatchObject({ id: other.id, status: 'dismissed', count: other.count + 1 });
  });

  it('folds ids into one shape per unknown path, keeps one sample of at most 512 characters, and finds rows by sample', async () => {
    const at = (path: string) => refused(path, fold);
    for (const path of ['/api/v3/thing/123', '/api/v3/thing/456', '/api/v3/Thing/0123abcd99'])
      expect((await at(path)).status).toBe(403);
    expect((await at('/api/v3/a/b/c/d/e/f')).status).toBe(403);
    expect((await at(`/api/v3/long/${'k'.repeat(600)}`)).status).toBe(403);
    expect((await at('/api/v3/movie/lookup?term=x')).status).toBe(403);
    await t.app.get(WarningRecorder).flush();
    const rows = await warningsOf(fold.proxy.id);
    expect(rows.map((w) => [w.method, w.shape, w.route, w.count]).sort()).toEqual(
      [
        ['get', '/api/v3/thing/{id}', null, 3],
        ['get', '/api/v3/a/b/c/d/…', null, 1],
        ['get', '/api/v3/long/{id}', null, 1],
        ['get', null, '/api/v3/movie/lookup', 1],
      ].sort(),
    );
    const thing = found(rows.filter((w) => w.shape === '/api/v3/thing/{id}'));
    expect(thing.path).toBe('/api/v3/Thing/0123abcd99');
    const long = found(rows.filter((w) => w.shape === '/api/v3/long/{id}'));
    expect(long.path).toHaveLength(512);
    expect(long.path.endsWith('…')).toBe(true);

    const search = async (q: string) =>
      (
        (await admin.get(`/api/admin/v1/warnings?proxyId=${fold.proxy.id}&q=${encodeURIComponent(q)}`).expect(200))
          .body as Page<WarningDto>
      ).items.map((w) => w.id);
    expect(await search('0123ABCD99')).toEqual([thing.id]);
    expect(await search('thing/{id}')).toEqual([thing.id]);
    expect(await search('movie/lookup')).toHaveLength(1);
    expect(await search('%')).toEqual([]);
    expect(await search('no such path')).toEqual([]);
    await admin.get(`/api/admin/v1/warnings?q=${'x'.repeat(201)}`).expect(400);
  });

  it("grants a folded row's sample path, or its shape when the admin picks it, and a route's warning its route", async () => {
    const at = (path: string) => refused(path, fold);
    const rows = await warningsOf(fold.proxy.id);
    const thing = found(rows.filter((w) => w.shape === '/api/v3/thing/{id}'));
    const granted = await admin.post(`/api/admin/v1/warnings/${thing.id}/grant`).expect(200);
    expect(granted.body).toMatchObject({ warning: { id: thing.id, status: 'granted' } });
    await eventually('the sample path is granted', async () => (await at('/api/v3/Thing/0123abcd99')).status !== 403);
    // Only that path: another id of the shape is still refused, and opens the row again.
    expect((await at('/api/v3/thing/777')).status).toBe(403);
    await t.app.get(WarningRecorder).flush();
    const reopened = found((await warningsOf(fold.proxy.id)).filter((w) => w.id === thing.id));
    expect(reopened).toMatchObject({ status: 'open', path: '/api/v3/thing/777' });
    await admin.post(`/api/admin/v1/warnings/${thing.id}/grant`, { scope: 'shape' }).expect(200);
    await eventually('the shape is granted', async () => (await at('/api/v3/thing/888')).status !== 403);

    // Deeper than six segments: the shape stands for more than it can name, the sample can be granted.
    const deep = found(rows.filter((w) => w.shape === '/api/v3/a/b/c/d/…'));
    const deepShape = await admin.post(`/api/admin/v1/warnings/${deep.id}/grant`, { scope: 'shape' }).expect(409);
    expect((deepShape.body as { message: string }).message).toMatch(/cannot be granted/);
    await admin.post(`/api/admin/v1/warnings/${deep.id}/grant`).expect(200);

    // A sample cut at 512 characters is not a path: its shape is granted instead.
    const long = found(rows.filter((w) => w.shape === '/api/v3/long/{id}'));
    const cut = await admin.post(`/api/admin/v1/warnings/${long.id}/grant`).expect(409);
    expect((cut.body as { message: string }).message).toMatch(/grant the shape/);
    await admin.post(`/api/admin/v1/warnings/${long.id}/grant`, { scope: 'shape' }).expect(200);
    await eventually('the long shape is granted', async () => (await at('/api/v3/long/other')).status !== 403);

    // A catalogue route's warning grants its route, whatever the scope.
    const lookup = found(rows.filter((w) => w.route === '/api/v3/movie/lookup'));
    await admin.post(`/api/admin/v1/warnings/${lookup.id}/grant`, { scope: 'shape' }).expect(200);
    await eventually('the route is granted', async () => (await at('/api/v3/movie/lookup?term=y')).status !== 403);
  });

  it('deletes warnings last seen more than WARNING_RETENTION_DAYS (90) ago, one replica at a time', async () => {
    const dataSource = t.app.get(DataSource);
    const retention = t.app.get(WarningRetention);
    expect(await retention.purge()).toBe(0);
    await dataSource.query(
      `UPDATE access_warning SET last_seen = now() - interval '91 days', first_seen = now() - interval '92 days'
       WHERE proxy_id = $1 AND route_key LIKE '/api/v3/p1%'`,
      [setup.proxy.id],
    );
    const [{ old }] = (await dataSource.query(
      `SELECT count(*)::int AS old FROM access_warning WHERE last_seen < now() - interval '90 days'`,
    )) as { old: number }[];
    expect(old).toBeGreaterThan(0);
    const total = await rowsOf(setup.proxy.id);

    // Another replica purging (holding the lock): this one leaves the work to it.
    const other = dataSource.createQueryRunner();
    await other.connect();
    try {
      await other.query('SELECT pg_advisory_lock($1)', [WARNING_RETENTION_LOCK]);
      expect(await retention.purge()).toBeNull();
      await other.query('SELECT pg_advisory_unlock($1)', [WARNING_RETENTION_LOCK]);
    } finally {
      await other.release();
    }
    expect(await retention.purge()).toBe(old);
    expect(await rowsOf(setup.proxy.id)).toBe(total - old);
    expect(await rowsOf(fold.proxy.id)).toBe(4);

    // 91 days on, by the server's clock (or a date given to the purge): everything else goes too.
    t.clock.advance(91 * 24 * 3_600_000);
    expect(await retention.purge()).toBe(total - old + 4);
    expect(await rowsOf(setup.proxy.id)).toBe(0);
    // A freed proxy records new rows again.
    expect((await refused('/api/v3/fresh/1')).status).toBe(403);
    await t.app.get(WarningRecorder).flush();
    expect((await warningsOf(setup.proxy.id)).map((w) => w.shape)).toEqual(['/api/v3/fresh/{id}']);
  });
});
