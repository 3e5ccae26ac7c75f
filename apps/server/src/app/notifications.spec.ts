import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type {
  ChangeDto,
  NotificationAttemptDto,
  NotificationSettings,
  Page,
  ServiceDto,
  WarningDto,
  WebhookJsonPayload,
} from '@arrbiter/contracts';
import { NOTIFICATION_EVENTS } from '@arrbiter/contracts';
import { DatabaseLogger, SERVICE_CHECK_LOCK } from '@arrbiter/server/database';
import { NotificationDispatcher, Notifier } from '@arrbiter/server/notifications';
import { LearningDeadlines } from '@arrbiter/server/proxies';
import { ServiceReachabilityCheck } from '@arrbiter/server/services';
import { eventually, WebhookReceiver, seedProxy, seedService } from '@arrbiter/server/testing';
import { WarningRecorder } from '@arrbiter/server/warnings';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { DataSource } from 'typeorm';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, found, startTestApp, TestApp } from '../testing/test-app';

const SETTINGS = '/api/admin/v1/settings/notifications';
const HOUR = 3_600_000;
/** A Discord-like URL whose last segment is the secret. */
const TOKEN = 'Sup3rSecretWebhookToken_abcdefghijklmnop';

describe('notifications: webhook settings, events and delivery', () => {
  let t: TestApp;
  let admin: AdminClient;
  let base: string;
  let receiver: WebhookReceiver;
  let upstream: FakeServarr;
  let service: ServiceDto;
  let work: string;

  const settings = async () => (await admin.get(SETTINGS).expect(200)).body as NotificationSettings;
  const save = async (webhooks: object[]) =>
    (await admin.put(SETTINGS, { webhooks }).expect(200)).body as NotificationSettings;
  const attempts = async (id: string, query = '') =>
    ((await admin.get(`${SETTINGS}/${id}/attempts${query}`).expect(200)).body as Page<NotificationAttemptDto>).items;
  /** What the json webhook at `path` got, as documents. */
  const documents = (path: string) => receiver.at(path).map((r) => r.json as WebhookJsonPayload);
  /** Hands what was raised to the queue and sends what is due, instead of waiting for the timers. */
  const deliver = async () => {
    await t.app.get(WarningRecorder).flush();
    await t.app.get(NotificationDispatcher).flush();
  };
  const newProxy = async (slug: string) => {
    const { app, proxy } = await seedProxy(admin, {
      service,
      app: { name: `App ${slug}`, slug },
    });
    return { app, proxy };
  };
  const call = (slug: string, key: string, path: string) =>
    rawRequest(base, 'GET', `/proxy/${slug}${path}`, { 'x-api-key': key });

  beforeAll(async () => {
    work = mkdtempSync(join(tmpdir(), 'arrbiter-notify-'));
    // The periodic check is driven by hand here (ServiceReachabilityCheck.check).
    t = await startTestApp({ OPENAPI_SOURCES: 'none', TEMPLATE_ROOT: work, SERVICE_CHECK_INTERVAL_SECONDS: '0' });
    admin = await t.admin();
    base = await t.listen();
    receiver = await WebhookReceiver.start();
    upstream = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    service = await seedService(admin, upstream);
  });
  afterAll(async () => {
    await receiver?.stop();
    await upstream?.stop();
    await t?.close();
    rmSync(work, { recursive: true, force: true });
  });

  describe('settings', () => {
    it('needs a session and validates every field, naming it; nothing is stored on a bad list', async () => {
      expect((await t.http.get(SETTINGS)).status).toBe(401);
      expect((await t.http.put(SETTINGS).set('Origin', t.config.publicOrigin).send({ webhooks: [] })).status).toBe(401);
      const good = { url: `${receiver.url}/ok`, format: 'json', events: ['key.rotated'], enabled: true };
      const cases: [object, RegExp][] = [
        [
          { webhooks: [{ ...good, format: 'slack' }] },
          /webhooks\.0\.format must be one of the following values: json, discord, ntfy/,
        ],
        [
          { webhooks: [{ ...good, events: ['warning.old'] }] },
          /webhooks\.0\.each value in events must be one of the following values/,
        ],
        [
          { webhooks: [{ ...good, events: ['key.rotated', 'key.rotated'] }] },
          /webhooks\.0\.events must not list an event twice/,
        ],
        [
          { webhooks: [{ ...good, url: 'ftp://example.com/x' }] },
          /webhooks\.0\.url must start with http:\/\/ or https:\/\//,
        ],
        [{ webhooks: [{ ...good, url: 'https://example.com/x#y' }] }, /webhooks\.0\.url must not have a fragment/],
        [{ webhooks: [{ ...good, enabled: 'yes' }] }, /webhooks\.0\.enabled must be a boolean value/],
        [{ webhooks: [{ ...good, secret: 'x' }] }, /webhooks\.0\.property secret should not exist/],
        [{ webhooks: [{ ...good, id: 'not-a-uuid' }] }, /webhooks\.0\.id must be a UUID/],
        [
          { webhooks: [{ ...good, id: '00000000-0000-4000-8000-000000000000' }] },
          /webhooks\.0\.id: no webhook has this id/,
        ],
        [{ webhooks: [{ ...good, url: undefined }] }, /webhooks\.0\.url is required for a new webhook/],
        [
          { webhooks: [{ ...good, url: 'https://discord.com/api/webhooks/1/…' }] },
          /webhooks\.0\.url is a masked URL: enter the whole URL/,
        ],
        [{ webhooks: Array.from({ length: 21 }, () => good) }, /webhooks must hold at most 20 webhooks/],
        [{ webhooks: 'none' }, /webhooks must be an array/],
        [{}, /webhooks must be an array/],
      ];
      for (const [body, expected] of cases) {
        const response = await admin.put(SETTINGS, body).expect(400);
        expect([JSON.stringify(body).slice(0, 80), JSON.stringify(response.body.message)]).toEqual([
          JSON.stringify(body).slice(0, 80),
          expect.stringMatching(expected),
        ]);
      }
      expect(await settings()).toEqual({ webhooks: [] });
    });

    it('stores URLs encrypted, answers them masked, keeps them when left out or sent back masked', async () => {
      const discordUrl = `${receiver.url}/api/webhooks/123456/${TOKEN}`;
      const saved = await save([
        { url: discordUrl, format: 'discord', events: ['key.rotated', 'service.unreachable'], enabled: true },
        { url: `${receiver.url}/ntfy/alerts?auth=tk_${TOKEN}`, format: 'ntfy', events: [], enabled: false },
      ]);
      expect(saved.webhooks).toEqual([
        {
          id: expect.any(String),
          url: `${receiver.url}/api/webhooks/123456/…`,
          format: 'discord',
          // In the documented order, whatever order they came in.
          events: ['service.unreachable', 'key.rotated'],
          enabled: true,
        },
        { id: expect.any(String), url: `${receiver.url}/ntfy/…`, format: 'ntfy', events: [], enabled: false },
      ]);
      expect(JSON.stringify(await settings())).not.toContain(TOKEN);
      const rows = (await t.app.get(DataSource).query('SELECT url_ciphertext FROM notification_webhook')) as {
        url_ciphertext: string;
      }[];
      expect(rows).toHaveLength(2);
      for (const row of rows) {
        expect(row.url_ciphertext).toMatch(/^v1\./);
        expect(row.url_ciphertext).not.toContain(TOKEN);
      }

      const [discord, ntfy] = saved.webhooks;
      const test = (await admin.post(`${SETTINGS}/${discord.id}/test`).expect(200)).body as NotificationAttemptDto;
      expect(test).toEqual({ event: 'test', at: expect.any(String), status: 'delivered', httpStatus: 200 });

      // Sent back as read (masked), and with the URL left out: both keep the stored URLs.
      const kept = await save([
        { ...discord, enabled: false },
        { id: ntfy.id, format: 'json', events: ['warning.new'], enabled: true },
      ]);
      expect(kept.webhooks.map((w) => [w.id, w.url, w.format, w.enabled])).toEqual([
        [discord.id, discord.url, 'discord', false],
        [ntfy.id, ntfy.url, 'json', true],
      ]);
      await admin.post(`${SETTINGS}/${discord.id}/test`).expect(200);
      expect(receiver.at(`/api/webhooks/123456/${TOKEN}`)).toHaveLength(2);
      // A webhook that stays keeps its attempts.
      expect(await attempts(discord.id)).toHaveLength(2);
      // Another webhook's masked URL is not this one's.
      const swapped = await admin.put(SETTINGS, { webhooks: [{ ...discord, url: ntfy.url }] }).expect(400);
      expect(swapped.body.message).toEqual([
        expect.stringMatching(/^webhooks\.0\.url is a masked URL that is not this webhook's/),
      ]);

      // Left out: deleted, with its attempts.
      await save([{ id: ntfy.id, format: 'json', events: ['warning.new'], enabled: true }]);
      await admin.get(`${SETTINGS}/${discord.id}/attempts`).expect(404);
      await admin.post(`${SETTINGS}/${discord.id}/test`).expect(404);
      const count = (await t.app.get(DataSource).query('SELECT count(*)::int AS n FROM notification_attempt')) as {
        n: number;
      }[];
      expect(count[0].n).toBe(0);

      const entries = (
        (await admin.get('/api/admin/v1/changes?objectType=settings').expect(200)).body as Page<ChangeDto>
      ).items;
      expect(entries.filter((c) => c.action === 'settings.notifications-saved').map((c) => c.summary)).toEqual([
        '1 webhook: json with 1 event; 1 deleted',
        '2 webhooks: discord with 2 events (disabled), json with 1 event',
        '2 webhooks: discord with 2 events, ntfy with 0 events (disabled)',
      ]);
      // Never a URL or a part of one in a log line.
      expect(t.logs.join('\n')).not.toContain(TOKEN);
      await save([]);
    });

    it('answers a failed test message with the receiver’s status and a short error without the URL', async () => {
      const [hook] = (
        await save([{ url: `${receiver.url}/broken/${TOKEN}`, format: 'json', events: [], enabled: true }])
      ).webhooks;
      receiver.answer(`/broken/${TOKEN}`, 503);
      const test = (await admin.post(`${SETTINGS}/${hook.id}/test`).expect(200)).body as NotificationAttemptDto;
      expect(test).toEqual({
        event: 'test',
        at: expect.any(String),
        status: 'failed',
        httpStatus: 503,
        error: 'HTTP 503: {"error":"try later"}',
      });
      await admin.post(`${SETTINGS}/not-a-uuid/test`).expect(400);
      await save([]);
    });

    it('shows a viewer no secret of the URL or its Authorization in any encoding, whatever a receiver echoes', async () => {
      const user = 'hook-User7';
      const password = 'P@ss:W0rd+/Key=';
      const query = 'Qv+Secret/Value=9';
      const basic = Buffer.from(`${user}:${password}`).toString('base64');
      const secrets: Record<string, string> = {
        user,
        password,
        'user:password': `${user}:${password}`,
        'path token': TOKEN,
        'query value': query,
        authorization: `Basic ${basic}`,
        'authorization token': basic,
      };
      const encodings: Record<string, (value: string) => string> = {
        raw: (v) => v,
        lower: (v) => v.toLowerCase(),
        upper: (v) => v.toUpperCase(),
        percent: (v) => encodeURIComponent(v),
        base64: (v) => Buffer.from(v).toString('base64'),
        base64url: (v) => Buffer.from(v).toString('base64url'),
      };
      // Echoes one secret in one encoding per request, as it got it (the header, the path, the query).
      const modes = Object.keys(secrets).flatMap((secret) =>
        Object.keys(encodings).map((encoding) => ({ secret, encoding })),
      );
      let next = 0;
      const echo = createServer((req, res) => {
        const mode = modes[next % modes.length];
        next += 1;
        const url = new URL(req.url ?? '/', 'http://receiver');
        const auth = req.headers.authorization ?? '';
        const got: Record<string, string> = {
          ...secrets,
          authorization: auth,
          'authorization token': auth.replace(/^Basic /, ''),
          'path token': url.pathname.split('/').pop() ?? '',
          'query value': url.searchParams.get('auth') ?? '',
        };
        res.writeHead(401).end(`{"error":"denied","got":"${encodings[mode.encoding](got[mode.secret])}"}`);
      });
      await new Promise<void>((done) => echo.listen(0, '127.0.0.1', done));
      const viewer = { username: 'vera-notify', password: 'viewer passphrase 1' };
      await admin.post('/api/admin/v1/admins', { ...viewer, role: 'viewer' }).expect(201);
      const cookie = await t.signIn(viewer);
      try {
        const host = `127.0.0.1:${(echo.address() as AddressInfo).port}`;
        const url = `http://${user}:${encodeURIComponent(password)}@${host}/hooks/123/${TOKEN}?auth=${encodeURIComponent(query)}`;
        const [hook] = (await save([{ url, format: 'json', events: [], enabled: true }])).webhooks;
        const answers: string[] = [];
        for (let i = 0; i < modes.length; i += 1)
          answers.push(JSON.stringify((await admin.post(`${SETTINGS}/${hook.id}/test`).expect(200)).body));
        const listed = (await t.http.get(`${SETTINGS}/${hook.id}/attempts?limit=200`).set('Cookie', cookie).expect(200))
          .body as Page<NotificationAttemptDto>;
        expect(listed.items).toHaveLength(modes.length);
        expect(
          listed.items.every((a) => a.status === 'failed' && a.error?.startsWith('HTTP 401: {"error":"denied"')),
        ).toBe(true);
        const shown = [JSON.stringify(listed), ...answers].join('\n').toLowerCase();
        const leaks = Object.entries(secrets).flatMap(([name, secret]) =>
          Object.entries(encodings)
            .filter(([, encode]) => shown.includes(encode(secret).toLowerCase()))
            .map(([encoding]) => `${name} ${encoding}`),
        );
        expect(leaks).toEqual([]);
      } finally {
        echo.closeAllConnections();
        await new Promise((done) => echo.close(done));
        await save([]);
      }
    });

    it('never follows a redirect to another port of the same host with the Authorization', async () => {
      // The other port: a receiver that would record the Authorization.
      const other = await WebhookReceiver.start();
      const seen: (string | undefined)[] = [];
      const moved = createServer((req, res) => {
        seen.push(req.headers.authorization);
        res.writeHead(302, { Location: `${other.url}/moved` }).end();
      });
      await new Promise<void>((done) => moved.listen(0, '127.0.0.1', done));
      try {
        const url = `http://hook-user:s3cret-pass@127.0.0.1:${(moved.address() as AddressInfo).port}/moved`;
        const [hook] = (await save([{ url, format: 'json', events: [], enabled: true }])).webhooks;
        const test = (await admin.post(`${SETTINGS}/${hook.id}/test`).expect(200)).body as NotificationAttemptDto;
        expect(test).toMatchObject({
          status: 'failed',
          httpStatus: 302,
          error: 'answered 302, a redirect to another origin (scheme, host or port): not followed',
        });
        expect(seen).toEqual([`Basic ${Buffer.from('hook-user:s3cret-pass').toString('base64')}`]);
        expect(other.received).toEqual([]);
      } finally {
        moved.closeAllConnections();
        await new Promise((done) => moved.close(done));
        await other.stop();
        await save([]);
      }
    });
  });

  describe('events', () => {
    let hookId: string;

    beforeAll(async () => {
      const [hook] = (
        await save([
          {
            url: `${receiver.url}/events`,
            format: 'json',
            events: [...NOTIFICATION_EVENTS],
            enabled: true,
          },
        ])
      ).webhooks;
      hookId = hook.id;
    });

    it('key.rotated: who, which proxy, never the key', async () => {
      const { app, proxy } = await newProxy('rotating');
      const { key } = (await admin.post(`/api/admin/v1/proxies/${proxy.id}/rotate-key`).expect(200)).body as {
        key: string;
      };
      await deliver();
      const [message] = await receiver.waitFor('key.rotated', () => {
        const found = documents('/events').filter((d) => d.event === 'key.rotated');
        return found.length > 0 && found;
      });
      expect(message).toMatchObject({
        event: 'key.rotated',
        title: `Key rotated: App rotating → Movies`,
        severity: 'warning',
        link: `${t.config.publicUrl}/apps/${app.id}/proxies/${proxy.id}/connection`,
        suppressed: 0,
        data: { proxyId: proxy.id, appId: app.id, appName: 'App rotating', serviceName: 'Movies', actor: 'admin' },
      });
      expect(message.data['previousKeyValidUntil']).toBeNull();
      expect(message.text).toContain('The old key no longer works');

      // With a grace period: until when the old key works.
      const graced = (
        await admin.post(`/api/admin/v1/proxies/${proxy.id}/rotate-key`, { graceMinutes: 60 }).expect(200)
      ).body as { key: string; previousKeyValidUntil: string };
      await deliver();
      const [, second] = await receiver.waitFor('the second key.rotated', () => {
        const found = documents('/events').filter((d) => d.event === 'key.rotated');
        return found.length > 1 && found;
      });
      expect(second.data['previousKeyValidUntil']).toBe(graced.previousKeyValidUntil);
      expect(second.text).toContain(`The old key keeps working until ${graced.previousKeyValidUntil}`);

      const raw = receiver
        .at('/events')
        .map((r) => r.body)
        .join('');
      for (const secret of [key, graced.key, proxy.key, upstream.options.apiKey]) expect(raw).not.toContain(secret);
    });

    it('warning.new: once per route of a proxy and hour; a refusal after a grant is news, coalesced within the hour', async () => {
      const { proxy } = await newProxy('refused');
      const refusals = () =>
        documents('/events').filter((d) => d.event === 'warning.new' && d.data['proxyId'] === proxy.id);
      for (let i = 1; i <= 5; i += 1) expect((await call('refused', proxy.key, `/api/v3/movie/${i}`)).status).toBe(403);
      await deliver();
      for (let i = 6; i <= 10; i += 1)
        expect((await call('refused', proxy.key, `/api/v3/movie/${i}`)).status).toBe(403);
      expect((await call('refused', proxy.key, '/api/v3/calendar')).status).toBe(403);
      await deliver();
      await receiver.waitFor('two refusals', () => refusals().length >= 2);
      expect(refusals().map((d) => [d.title, d.data['path'], d.data['reopened'], d.suppressed])).toEqual([
        // The latest path of the batch that wrote the row.
        ['Refused: GET /api/v3/movie/{id}', '/api/v3/movie/5', false, 0],
        ['Refused: GET /api/v3/calendar', '/api/v3/calendar', false, 0],
      ]);

      // Granted, then taken back: refused again, news, but within the hour of the first message.
      await t.app.get(WarningRecorder).flush();
      const warnings = (
        (await admin.get(`/api/admin/v1/warnings?proxyId=${proxy.id}`).expect(200)).body as Page<WarningDto>
      ).items;
      const movie = found(
        warnings.find((w) => w.route === '/api/v3/movie/{id}'),
        'the movie warning',
      );
      let key = proxy.key;
      const regrant = async () => {
        await admin.post(`/api/admin/v1/warnings/${movie.id}/grant`).expect(200);
        expect((await call('refused', key, '/api/v3/movie/11')).status).toBe(200);
        await admin.put(`/api/admin/v1/proxies/${proxy.id}/config`, { overrides: {}, active: true }).expect(200);
        expect((await call('refused', key, '/api/v3/movie/12')).status).toBe(403);
        await deliver();
      };
      await regrant();
      // A later event goes out after anything raised before it: then nothing else came.
      key = ((await admin.post(`/api/admin/v1/proxies/${proxy.id}/rotate-key`).expect(200)).body as { key: string })
        .key;
      await deliver();
      await receiver.waitFor('the rotation', () =>
        documents('/events').some((d) => d.event === 'key.rotated' && d.data['proxyId'] === proxy.id),
      );
      expect(refusals()).toHaveLength(2);

      // An hour later the next one goes, counting the one left out.
      t.clock.advance(HOUR);
      await regrant();
      const [, , again] = await receiver.waitFor(
        'the refusal after the hour',
        () => refusals().length >= 3 && refusals(),
      );
      expect(again).toMatchObject({
        title: 'Refused: GET /api/v3/movie/{id}',
        suppressed: 1,
        data: { reopened: true },
      });
      expect(again.text).toContain('again, after it had been granted');
    });

    it('warning.new for many proxies at once: each named by its app and service, in a few queries', async () => {
      const refused = await Promise.all([1, 2, 3, 4, 5, 6].map((i) => newProxy(`flood-${i}`)));
      await t.app.get(WarningRecorder).flush();
      for (const [i, { proxy }] of refused.entries())
        expect((await call(`flood-${i + 1}`, proxy.key, '/api/v3/calendar')).status).toBe(403);
      const counter = t.app.get(DatabaseLogger);
      const before = counter.queryCount;
      await t.app.get(WarningRecorder).flush();
      // One insert of the batch (in a transaction holding the flush lock: BEGIN, lock, insert, COMMIT),
      // then the proxies, apps and services named in one query each (it was three queries per proxy); a
      // write-behind batch of another kind may fall inside.
      expect(counter.queryCount - before).toBeLessThanOrEqual(9);
      await t.app.get(NotificationDispatcher).flush();
      const named = await receiver.waitFor('six refusals', () => {
        const news = documents('/events').filter(
          (d) => d.event === 'warning.new' && refused.some(({ proxy }) => proxy.id === d.data['proxyId']),
        );
        return news.length >= 6 && news;
      });
      expect(named.map((d) => [d.data['appName'], d.data['serviceName']]).sort()).toEqual(
        refused.map(({ app }) => [app.name, 'Movies']).sort(),
      );
    });

    it('learning.ended: at the deadline and when stopped', async () => {
      const { proxy } = await newProxy('learner');
      const until = new Date(t.clock.now() + HOUR).toISOString();
      await admin.post(`/api/admin/v1/proxies/${proxy.id}/learning`, { until }).expect(200);
      t.clock.advance(HOUR + 1000);
      await t.app.get(LearningDeadlines).check();
      const { proxy: other } = await newProxy('stopped');
      await admin
        .post(`/api/admin/v1/proxies/${other.id}/learning`, { until: new Date(t.clock.now() + HOUR).toISOString() })
        .expect(200);
      await admin.delete(`/api/admin/v1/proxies/${other.id}/learning`).expect(200);
      // Stopping a proxy that is not learning ends nothing.
      await admin.delete(`/api/admin/v1/proxies/${other.id}/learning`).expect(200);
      await deliver();
      const ended = await receiver.waitFor('two ends of learning', () => {
        const found = documents('/events').filter((d) => d.event === 'learning.ended');
        return found.length >= 2 && found;
      });
      expect(ended.map((d) => [d.data['proxyId'], d.data['reason'], d.data['actor']])).toEqual([
        [proxy.id, 'deadline', 'system'],
        [other.id, 'stopped', 'admin'],
      ]);
    });

    it('template-sync.changed and template-sync.failed', async () => {
      mkdirSync(join(work, 'radarr'), { recursive: true });
      writeFileSync(join(work, 'radarr', 'homepage.json'), JSON.stringify({ '/api/v3/movie': ['get'] }));
      const repository = (url: string) =>
        admin
          .put('/api/admin/v1/settings/template-repository', { url, ref: '', path: '', intervalMinutes: 0 })
          .expect(200);
      await repository(work);
      await admin.post('/api/admin/v1/templates/sync').expect(200);
      // Unchanged: no message.
      await admin.post('/api/admin/v1/templates/sync').expect(200);
      await repository('http://127.0.0.1:9/templates.git');
      await admin.post('/api/admin/v1/templates/sync').expect(502);
      await admin.post('/api/admin/v1/templates/sync').expect(502);
      await deliver();
      const syncs = await receiver.waitFor('the syncs', () => {
        const found = documents('/events').filter((d) => d.event.startsWith('template-sync.'));
        return found.length >= 2 && found;
      });
      expect(syncs.map((d) => [d.event, d.severity])).toEqual([
        ['template-sync.changed', 'info'],
        ['template-sync.failed', 'error'],
      ]);
      expect(syncs[0].data).toMatchObject({
        added: ['homepage'],
        changed: [],
        deleted: [],
        proxies: 0,
        actor: 'admin',
      });
      expect(syncs[1].data['error']).toEqual(expect.any(String));
    });

    it('service.unreachable and service.recovered: on a change of state only, never twice', async () => {
      const check = t.app.get(ServiceReachabilityCheck);
      const flaky = await FakeServarr.start({ type: 'sonarr', instanceName: 'Shows' });
      const port = flaky.port;
      const shows = await seedService(admin, flaky);
      const states = () =>
        documents('/events')
          .filter((d) => d.event.startsWith('service.') && d.data['serviceId'] === shows.id)
          .map((d) => d.event);
      // A round answers the services whose state changed: none at first (reachable, as when registered).
      expect(await check.check()).toEqual([]);
      // Another replica's round holds the lock: this one skips its round.
      const other = t.app.get(DataSource).createQueryRunner();
      await other.connect();
      try {
        await other.query('SELECT pg_advisory_lock($1)', [SERVICE_CHECK_LOCK]);
        expect(await check.check()).toBeNull();
        await other.query('SELECT pg_advisory_unlock($1)', [SERVICE_CHECK_LOCK]);
      } finally {
        await other.release();
      }
      await flaky.stop();
      expect(await check.check()).toEqual([{ serviceId: shows.id, reachable: false }]);
      expect(await check.check()).toEqual([]);
      const back = await FakeServarr.start({
        type: 'sonarr',
        instanceName: 'Shows',
        port,
        apiKey: flaky.options.apiKey,
      });
      try {
        expect(await check.check()).toEqual([{ serviceId: shows.id, reachable: true }]);
        expect(await check.check()).toEqual([]);
      } finally {
        await back.stop();
      }
      await deliver();
      await receiver.waitFor('unreachable and recovered', () => states().length >= 2);
      expect(states()).toEqual(['service.unreachable', 'service.recovered']);
      const [down] = documents('/events').filter((d) => d.event === 'service.unreachable');
      expect(down).toMatchObject({ title: 'Unreachable: Shows', severity: 'error', data: { serviceType: 'sonarr' } });
      expect(String(down.data['error'])).toContain('ECONNREFUSED');
    });

    it('stores each attempt, newest first, a page at a time', async () => {
      const all = await attempts(hookId, '?limit=200');
      expect(all.length).toBeGreaterThanOrEqual(10);
      expect(all.every((a) => a.status === 'delivered' && a.httpStatus === 200)).toBe(true);
      const times = all.map((a) => Date.parse(a.at));
      expect([...times].sort((a, b) => b - a)).toEqual(times);
      const paged: NotificationAttemptDto[] = [];
      let cursor: string | null = null;
      do {
        const page = (
          await admin.get(`${SETTINGS}/${hookId}/attempts?limit=3${cursor ? `&cursor=${cursor}` : ''}`).expect(200)
        ).body as Page<NotificationAttemptDto>;
        expect(page.items.length).toBeLessThanOrEqual(3);
        paged.push(...page.items);
        cursor = page.nextCursor;
      } while (cursor);
      expect(paged).toEqual(all);
      await admin.get(`${SETTINGS}/${hookId}/attempts?limit=0`).expect(400);
      await admin.get(`${SETTINGS}/${hookId}/attempts?cursor=nonsense`).expect(400);
    });

    it('drops what does not fit in a webhook’s queue, and says so in its attempts', async () => {
      const [busy] = (
        await save([{ url: `${receiver.url}/busy`, format: 'json', events: ['key.rotated'], enabled: true }])
      ).webhooks;
      const { proxy, app } = await newProxy('busy');
      const subject = { id: proxy.id, appId: app.id, appName: app.name, serviceId: service.id, serviceName: 'Movies' };
      const notifier = t.app.get(Notifier);
      for (let i = 0; i < 130; i += 1)
        notifier.raise({ type: 'key.rotated', proxy: subject, actor: `admin${i}`, previousKeyValidUntil: null });
      await t.app.get(NotificationDispatcher).flush();
      let dropped: NotificationAttemptDto[] = [];
      await eventually('the dropped attempt', async () => {
        dropped = (await attempts(busy.id, '?limit=200')).filter((a) => a.status === 'dropped');
        return dropped.length > 0;
      });
      expect(dropped).toEqual([
        {
          event: 'key.rotated',
          at: expect.any(String),
          status: 'dropped',
          error: '30 messages not sent: 100 were already waiting for this webhook (rate cap or retries)',
        },
      ]);
      await receiver.waitFor('the first messages', () => receiver.at('/busy').length > 0);
      // Deleted: what still waits is never sent.
      await save([]);
    });
  });
});
