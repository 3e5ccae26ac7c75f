import { randomUUID } from 'node:crypto';
import type { BulkWarningsResponse, Page, RevisionDto, WarningDto, WarningSort } from '@arrbiter/contracts';
import { WarningRecorder } from '@arrbiter/server/warnings';
import { DataSource } from 'typeorm';
import { ProxiedUpstream, ungrantedProxy } from '../testing/proxied-upstream';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

/** Warnings at scale (#38): sorted and searched on the server, granted and dismissed in bulk. */
describe('warnings: sort, search and bulk actions', () => {
  let t: TestApp;
  let admin: AdminClient;
  let base: string;
  const proxies: ProxiedUpstream[] = [];

  const call = (setup: ProxiedUpstream, method: string, path: string) =>
    rawRequest(base, method, `/proxy/${setup.app.slug}${path}`, { 'x-api-key': setup.proxy.key });
  /** Every page of a list query (`limit` per page). */
  const allPages = async (query: string, limit: number) => {
    const all: WarningDto[] = [];
    let cursor: string | null = null;
    let pages = 0;
    do {
      const page = (
        await admin
          .get(`/api/admin/v1/warnings?${query}&limit=${limit}${cursor ? `&cursor=${cursor}` : ''}`)
          .expect(200)
      ).body as Page<WarningDto>;
      all.push(...page.items);
      cursor = page.nextCursor;
      pages++;
    } while (cursor && pages < 100);
    return { all, pages };
  };
  const warningsOf = async (setup: ProxiedUpstream) => (await allPages(`proxyId=${setup.proxy.id}`, 200)).all;
  const byPath = (rows: WarningDto[], method: string, path: string) => {
    const row = rows.find((w) => w.method === method && w.path === path);
    if (!row) throw new Error(`no warning for ${method} ${path}`);
    return row;
  };

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    base = await t.listen();
    for (const [slug, name] of [
      ['sort-b', 'Beta sort'],
      ['sort-a', 'Alpha sort'],
      ['sort-c', 'Gamma sort'],
    ])
      proxies.push(await ungrantedProxy(admin, slug, name));
  });
  afterAll(async () => {
    for (const p of proxies) await p.upstream.stop();
    await t?.close();
  });

  it('sorts 500 warnings by count, last seen, first seen and app, both ways, across keyset pages', async () => {
    // Seeded directly: ties on count and last seen, so that the id decides between them.
    await t.app.get(DataSource).query(
      `INSERT INTO access_warning (proxy_id, app_id, method, path, route, route_key, count, first_seen, last_seen, status)
       SELECT p.id, p.app_id, 'get', '/api/v3/seeded/' || i, NULL, '/api/v3/seeded/' || i, (i * 7) % 50 + 1,
              timestamptz '2026-11-01T00:00:00Z' + make_interval(mins => i),
              timestamptz '2026-11-20T00:00:00Z' + make_interval(secs => (i * 13) % 97), 'open'
       FROM generate_series(1, 500) AS i
       JOIN proxy p ON p.id = ($1::uuid[])[i % 3 + 1]`,
      [proxies.map((p) => p.proxy.id)],
    );
    const names = new Map(proxies.map((p) => [p.app.id, p.app.name]));
    const keyOf: Record<WarningSort, (w: WarningDto) => string | number> = {
      count: (w) => w.count,
      lastSeen: (w) => w.lastSeen,
      firstSeen: (w) => w.firstSeen,
      app: (w) => names.get(w.appId) ?? '',
    };
    for (const sort of ['count', 'lastSeen', 'firstSeen', 'app'] as const)
      for (const order of ['asc', 'desc'] as const) {
        const { all, pages } = await allPages(`q=/seeded/&sort=${sort}&order=${order}`, 37);
        expect(pages).toBe(14);
        expect(all).toHaveLength(500);
        expect(new Set(all.map((w) => w.id)).size).toBe(500);
        const expected = [...all].sort((a, b) => {
          const [ka, kb] = [keyOf[sort](a), keyOf[sort](b)];
          const byKey = ka < kb ? -1 : ka > kb ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0;
          return order === 'asc' ? byKey : -byKey;
        });
        expect(all.map((w) => w.id)).toEqual(expected.map((w) => w.id));
      }
    // The default is newest first.
    const first = (await admin.get('/api/admin/v1/warnings?q=/seeded/&limit=1').expect(200)).body as Page<WarningDto>;
    expect(first.items[0].lastSeen).toBe('2026-11-20T00:01:36.000Z');
  });

  it('refuses a cursor of another sort or order, an unknown sort and a page of more than 200', async () => {
    const page = (await admin.get('/api/admin/v1/warnings?q=/seeded/&sort=count&limit=5').expect(200))
      .body as Page<WarningDto>;
    expect(page.nextCursor).not.toBeNull();
    const cursor = page.nextCursor ?? '';
    await admin.get(`/api/admin/v1/warnings?q=/seeded/&sort=count&limit=5&cursor=${cursor}`).expect(200);
    await admin.get(`/api/admin/v1/warnings?q=/seeded/&sort=lastSeen&limit=5&cursor=${cursor}`).expect(400);
    await admin.get(`/api/admin/v1/warnings?q=/seeded/&sort=count&order=asc&limit=5&cursor=${cursor}`).expect(400);
    await admin.get(`/api/admin/v1/warnings?sort=name`).expect(400);
    await admin.get(`/api/admin/v1/warnings?order=up`).expect(400);
    await admin.get(`/api/admin/v1/warnings?limit=201`).expect(400);
    await admin.get(`/api/admin/v1/warnings?cursor=bm90LWEtY3Vyc29y`).expect(400);
  });

  it('searches the path, the route, the shape and a folded row’s sample, any case, % and _ taken as they are, and says what a grant opens', async () => {
    const [p] = proxies;
    await t.app.get(DataSource).query(
      `INSERT INTO access_warning (proxy_id, app_id, method, path, route, route_key, count, first_seen, last_seen, status) VALUES
       ($1, $2, 'get', '/api/v3/movie/77', '/api/v3/movie/{id}', '/api/v3/movie/{id}', 1, now(), now(), 'open'),
       ($1, $2, 'delete', '/api/v3/movie/78', '/api/v3/movie/{id}', '/api/v3/movie/{id}#', 1, now(), now(), 'open'),
       ($1, $2, 'get', '/api/v3/thing/4242', NULL, '/api/v3/thing/{id}', 3, now(), now(), 'open'),
       ($1, $2, 'get', '/api/v3/config/host', NULL, '/api/v3/config/host', 1, now(), now(), 'open'),
       ($1, $2, '*', '/api/v3/far/away', NULL, '(other paths)', 9, now(), now(), 'open')`,
      [p.proxy.id, p.app.id],
    );
    await t.app.get(DataSource).query(`UPDATE access_warning SET other_paths = true WHERE route_key = '(other paths)'`);
    const search = async (q: string) =>
      (
        (await admin.get(`/api/admin/v1/warnings?appId=${p.app.id}&q=${encodeURIComponent(q)}&limit=200`).expect(200))
          .body as Page<WarningDto>
      ).items;
    // The route (and not the sample path, which has no `{id}`).
    expect((await search('MOVIE/{ID}')).map((w) => w.method).sort()).toEqual(['delete', 'get']);
    // The shape of a folded row, and the sample it was last seen with.
    expect((await search('thing/{id}')).map((w) => w.path)).toEqual(['/api/v3/thing/4242']);
    expect((await search('/4242')).map((w) => w.path)).toEqual(['/api/v3/thing/4242']);
    expect((await search('far/AWAY')).map((w) => w.otherPaths)).toEqual([true]);
    expect(await search('movie/%')).toEqual([]);
    expect(await search('config_host')).toEqual([]);

    const rows = await search('/api/v3/');
    expect(byPath(rows, 'get', '/api/v3/movie/77').risk).toMatchObject({ sensitive: false, destructive: false });
    expect(byPath(rows, 'delete', '/api/v3/movie/78').risk).toMatchObject({ sensitive: false, destructive: true });
    expect(byPath(rows, 'get', '/api/v3/config/host').risk).toMatchObject({ sensitive: true, purpose: 'settings' });
    expect(byPath(rows, 'get', '/api/v3/thing/4242').risk?.reason).toEqual(expect.any(String));
    expect(byPath(rows, '*', '/api/v3/far/away').risk).toBeNull();
  });

  it('grants open warnings in bulk, one revision per proxy, leaving sensitive rows out until confirmed', async () => {
    const [a, b] = [await ungrantedProxy(admin, 'bulk-a', 'Bulk A'), await ungrantedProxy(admin, 'bulk-b', 'Bulk B')];
    proxies.push(a, b);
    for (const [setup, path] of [
      [a, '/api/v3/movie'],
      [a, '/api/v3/calendar'],
      [a, '/api/v3/config/host'],
      [a, '/api/v3/tag'],
      [b, '/api/v3/queue'],
    ] as const)
      expect((await call(setup, 'GET', path)).status).toBe(403);
    await t.app.get(WarningRecorder).flush();
    const rowsA = await warningsOf(a);
    const [movie, calendar, host, tag] = [
      '/api/v3/movie',
      '/api/v3/calendar',
      '/api/v3/config/host',
      '/api/v3/tag',
    ].map((path) => byPath(rowsA, 'get', path));
    const queue = byPath(await warningsOf(b), 'get', '/api/v3/queue');
    await admin.post(`/api/admin/v1/warnings/${tag.id}/dismiss`).expect(200);
    const missing = randomUUID();
    const revisionsBefore = async (setup: ProxiedUpstream) =>
      (
        (await admin.get(`/api/admin/v1/proxies/${setup.proxy.id}/revisions?limit=200`).expect(200))
          .body as Page<RevisionDto>
      ).items;
    const countBefore = (await revisionsBefore(a)).length;

    const response = (
      await admin
        .post('/api/admin/v1/warnings/grant', { ids: [movie.id, host.id, calendar.id, queue.id, tag.id, missing] })
        .expect(200)
    ).body as BulkWarningsResponse;
    expect(response.done).toEqual([movie.id, calendar.id, queue.id]);
    expect(response.skipped).toEqual([
      { id: host.id, reason: expect.stringMatching(/^sensitive: /) },
      { id: tag.id, reason: 'not open: dismissed' },
      { id: missing, reason: 'not found' },
    ]);
    expect(response.revisions.map((r) => [r.proxyId, r.kind]).sort()).toEqual(
      [
        [a.proxy.id, 'warning-grant'],
        [b.proxy.id, 'warning-grant'],
      ].sort(),
    );
    const revisionOfA = response.revisions.find((r) => r.proxyId === a.proxy.id);
    expect(revisionOfA?.summary.added).toEqual(
      expect.arrayContaining([
        { path: '/api/v3/movie', method: 'get' },
        { path: '/api/v3/calendar', method: 'get' },
      ]),
    );
    expect(revisionOfA?.summary.added).toHaveLength(2);
    expect(await revisionsBefore(a)).toHaveLength(countBefore + 1);
    // The proxy route sees the grants as soon as the answer is sent; the sensitive call stays refused.
    expect((await call(a, 'GET', '/api/v3/movie')).status).not.toBe(403);
    expect((await call(b, 'GET', '/api/v3/queue')).status).not.toBe(403);
    expect((await call(a, 'GET', '/api/v3/config/host')).status).toBe(403);
    const after = await warningsOf(a);
    expect(byPath(after, 'get', '/api/v3/movie').status).toBe('granted');
    expect(byPath(after, 'get', '/api/v3/config/host').status).toBe('open');

    // Granted again: nothing left to do but the sensitive row, which a confirmation grants.
    const again = (
      await admin.post('/api/admin/v1/warnings/grant', { ids: [movie.id, host.id], confirmSensitive: true }).expect(200)
    ).body as BulkWarningsResponse;
    expect(again.done).toEqual([host.id]);
    expect(again.skipped).toEqual([{ id: movie.id, reason: 'already granted' }]);
    expect(again.revisions).toHaveLength(1);
    expect((await call(a, 'GET', '/api/v3/config/host')).status).not.toBe(403);
  });

  it('dismisses in bulk, and refuses an empty list, more than 100 ids, repeats and what is not an id', async () => {
    const c = proxies[2];
    for (const path of ['/api/v3/one', '/api/v3/two']) expect((await call(c, 'GET', path)).status).toBe(403);
    await t.app.get(WarningRecorder).flush();
    const rows = await warningsOf(c);
    const ids = ['/api/v3/one', '/api/v3/two'].map((path) => byPath(rows, 'get', path).id);
    const response = (await admin.post('/api/admin/v1/warnings/dismiss', { ids }).expect(200))
      .body as BulkWarningsResponse;
    expect(response).toEqual({ done: ids, skipped: [], revisions: [] });
    for (const w of await warningsOf(c)) if (ids.includes(w.id)) expect(w.status).toBe('dismissed');
    const again = (await admin.post('/api/admin/v1/warnings/dismiss', { ids: [ids[0]] }).expect(200))
      .body as BulkWarningsResponse;
    expect(again.skipped).toEqual([{ id: ids[0], reason: 'already dismissed' }]);

    const many = Array.from({ length: 101 }, () => randomUUID());
    for (const path of ['grant', 'dismiss']) {
      await admin.post(`/api/admin/v1/warnings/${path}`, { ids: many }).expect(400);
      await admin.post(`/api/admin/v1/warnings/${path}`, { ids: many.slice(0, 100) }).expect(200);
      await admin.post(`/api/admin/v1/warnings/${path}`, { ids: [] }).expect(400);
      await admin.post(`/api/admin/v1/warnings/${path}`, { ids: [ids[1], ids[1]] }).expect(400);
      await admin.post(`/api/admin/v1/warnings/${path}`, { ids: ['not-an-id'] }).expect(400);
    }
  });
});
