import type {
  AppDto,
  NotificationAttemptDto,
  NotificationSettings,
  Page,
  ProxyConnectionDto,
  RotateKeyResponse,
  WarningDto,
  WebhookJsonPayload,
} from '@arrbiter/contracts';
import { NOTIFICATION_EVENTS } from '@arrbiter/contracts';
import {
  createTestDatabase,
  eventually,
  ReceivedWebhook,
  TestDatabase,
  WebhookReceiver,
  seedProxy,
  seedService,
} from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { ServerProcess, startServer } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'admin', ADMIN_PASSWORD: 'notifications test passphrase' };
const SETTINGS = '/api/admin/v1/settings/notifications';
/** The secret part of every webhook URL: it must never show in an answer or a log line. */
const TOKEN = 'Zq8WebhookSecretToken_4242abcdefghijkl';
const PATHS = {
  json: `/json/${TOKEN}`,
  discord: `/api/webhooks/987654321/${TOKEN}`,
  ntfy: `/ntfy-${TOKEN}`,
  flaky: `/flaky/${TOKEN}`,
};

/** A header as ntfy reads it: RFC 2047 (`=?UTF-8?B?…?=`) decoded. */
function decoded(value: string | string[] | undefined): string | undefined {
  const encoded = typeof value === 'string' ? /^=\?UTF-8\?B\?([A-Za-z0-9+/=]*)\?=$/.exec(value) : null;
  return encoded ? Buffer.from(encoded[1], 'base64').toString('utf8') : (value as string | undefined);
}

interface DiscordBody {
  content: string;
  embeds: {
    title: string;
    description: string;
    color: number;
    timestamp: string;
    url?: string;
    fields: { name: string; value: string }[];
  }[];
  allowed_mentions: { parse: string[] };
}

describe('notifications of the production server, to a local webhook receiver', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let receiver: WebhookReceiver;
  let movies: FakeServarr;
  let shows: FakeServarr;
  let admin: AdminHttpClient;
  let proxy: ProxyConnectionDto;
  let app: AppDto;
  let ids: Record<keyof typeof PATHS, string>;

  const json = (path: string) => receiver.at(path).map((r) => r.json as WebhookJsonPayload);
  const events = (path: string, event: string) => json(path).filter((d) => d.event === event);
  const rotate = async () =>
    (await admin.request<RotateKeyResponse>('POST', `/api/admin/v1/proxies/${proxy.id}/rotate-key`)).key;
  const attempts = (id: string, query: string) =>
    admin.request<Page<NotificationAttemptDto>>('GET', `${SETTINGS}/${id}/attempts${query}`);
  const refuse = async (path: string) => {
    const response = await fetch(`${server.url}/proxy/overseerr${path}`, { headers: { 'x-api-key': proxy.key } });
    await response.arrayBuffer();
    expect(response.status).toBe(403);
  };
  /** Waits for the warnings of the proxy to show `check` (the write-behind flushes every second). */
  const warningsUntil = (what: string, check: (warnings: WarningDto[]) => boolean) =>
    eventually(`warnings: ${what}`, async () =>
      check((await admin.request<Page<WarningDto>>('GET', `/api/admin/v1/warnings?proxyId=${proxy.id}`)).items),
    );

  beforeAll(async () => {
    database = await createTestDatabase();
    receiver = await WebhookReceiver.start();
    movies = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    shows = await FakeServarr.start({ type: 'sonarr', instanceName: 'Shows' });
    server = await startServer({
      ...database.env,
      ...ADMIN,
      OPENAPI_SOURCES: 'none',
      SERVICE_CHECK_INTERVAL_SECONDS: '1',
    });
    admin = await AdminHttpClient.signIn(server, ADMIN.ADMIN_USERNAME, ADMIN.ADMIN_PASSWORD);
    const service = await seedService(admin, movies);
    await seedService(admin, shows);
    ({ app, proxy } = await seedProxy(admin, { service, app: { name: 'Overseerr', slug: 'overseerr' } }));
    const saved = await admin.request<NotificationSettings>('PUT', SETTINGS, {
      webhooks: [
        { url: `${receiver.url}${PATHS.json}`, format: 'json', events: [...NOTIFICATION_EVENTS], enabled: true },
        {
          url: `${receiver.url}${PATHS.discord}`,
          format: 'discord',
          events: ['key.rotated', 'service.unreachable', 'service.recovered'],
          enabled: true,
        },
        { url: `${receiver.url}${PATHS.ntfy}`, format: 'ntfy', events: ['key.rotated'], enabled: true },
        { url: `${receiver.url}${PATHS.flaky}`, format: 'json', events: ['key.rotated'], enabled: true },
      ],
    });
    const [jsonHook, discord, ntfy, flaky] = saved.webhooks;
    ids = { json: jsonHook.id, discord: discord.id, ntfy: ntfy.id, flaky: flaky.id };
  });
  afterAll(async () => {
    await server?.stop();
    await receiver?.stop();
    await movies?.stop();
    await shows?.stop();
    await database?.drop();
  });

  it('answers the webhooks with masked URLs only', async () => {
    const settings = await admin.request<NotificationSettings>('GET', SETTINGS);
    expect(settings.webhooks.map((w) => [w.format, w.url])).toEqual([
      ['json', `${receiver.url}/json/…`],
      ['discord', `${receiver.url}/api/webhooks/987654321/…`],
      ['ntfy', `${receiver.url}/…`],
      ['json', `${receiver.url}/flaky/…`],
    ]);
    expect(JSON.stringify(settings)).not.toContain(TOKEN);
  });

  it('sends a test message now in each format and answers its result', async () => {
    for (const key of ['json', 'discord', 'ntfy'] as const) {
      const result = await admin.request<NotificationAttemptDto>('POST', `${SETTINGS}/${ids[key]}/test`);
      expect([key, result]).toEqual([
        key,
        { event: 'test', at: expect.any(String), status: 'delivered', httpStatus: 200 },
      ]);
    }
    const [document] = json(PATHS.json);
    expect(document).toEqual({
      event: 'test',
      at: expect.any(String),
      title: 'Test message from Arrbiter',
      text: expect.stringContaining('This webhook works'),
      severity: 'info',
      link: `http://localhost:${server.port}/settings`,
      suppressed: 0,
      data: {},
    });
    const [discord] = receiver.at(PATHS.discord);
    expect(discord.headers['content-type']).toBe('application/json');
    expect(discord.json).toMatchObject({
      content: 'Test message from Arrbiter',
      embeds: [{ title: 'Test message from Arrbiter', footer: { text: 'Arrbiter · test' } }],
      allowed_mentions: { parse: [] },
    });
    const [ntfy] = receiver.at(PATHS.ntfy);
    expect(ntfy.method).toBe('POST');
    expect(ntfy.body).toBe('This webhook works: Arrbiter can deliver its notifications here.');
    expect(ntfy.headers).toMatchObject({
      'content-type': 'text/plain; charset=utf-8',
      title: 'Test message from Arrbiter',
      tags: 'bell,arrbiter',
      priority: '3',
      click: `http://localhost:${server.port}/settings`,
    });
  });

  it('key.rotated reaches every format, never with a key; a receiver that answers 500 gets it again', async () => {
    const oldKey = proxy.key;
    receiver.answer(PATHS.flaky, 500);
    const newKey = await rotate();
    proxy = { ...proxy, key: newKey };
    const arrived = await receiver.waitFor('key.rotated in every format and the retry', (all) => {
      const got = (path: string) => all.filter((r) => r.path === path);
      const ready =
        events(PATHS.json, 'key.rotated').length === 1 &&
        got(PATHS.discord).length === 2 &&
        got(PATHS.ntfy).length === 2 &&
        got(PATHS.flaky).length === 2;
      return ready && { discord: got(PATHS.discord)[1], ntfy: got(PATHS.ntfy)[1], flaky: got(PATHS.flaky) };
    });
    const link = `http://localhost:${server.port}/apps/${app.id}/proxies/${proxy.id}/connection`;
    expect(events(PATHS.json, 'key.rotated')[0]).toMatchObject({
      title: 'Key rotated: Overseerr → Movies',
      severity: 'warning',
      link,
      data: { proxyId: proxy.id, appId: app.id, appName: 'Overseerr', serviceName: 'Movies', actor: 'admin' },
    });
    const discord = arrived.discord.json as DiscordBody;
    expect(discord.embeds[0]).toMatchObject({ title: 'Key rotated: Overseerr → Movies', url: link });
    expect(discord.embeds[0].fields).toEqual([
      { name: 'App', value: 'Overseerr', inline: true },
      { name: 'Service', value: 'Movies', inline: true },
      { name: 'By', value: 'admin', inline: true },
      { name: 'Old key works until', value: 'stopped at once', inline: true },
    ]);
    // Not ASCII (the arrow): RFC 2047-encoded, which ntfy decodes.
    expect(arrived.ntfy.headers['title']).toMatch(/^=\?UTF-8\?B\?/);
    expect(decoded(arrived.ntfy.headers['title'])).toBe('Key rotated: Overseerr → Movies');
    expect(arrived.ntfy.headers).toMatchObject({
      tags: 'key,arrbiter',
      click: link,
    });
    expect(arrived.ntfy.body).toContain('admin rotated the key of Overseerr → Movies');
    // The same message twice: refused with 500, then delivered.
    expect(arrived.flaky[0].body).toBe(arrived.flaky[1].body);
    for (const secret of [oldKey, newKey, movies.options.apiKey, shows.options.apiKey])
      expect(
        receiver.received.some(
          (r: ReceivedWebhook) => r.body.includes(secret) || JSON.stringify(r.headers).includes(secret),
        ),
      ).toBe(false);

    const flaky = await attempts(ids.flaky, '?limit=10');
    expect(flaky.items).toEqual([
      { event: 'key.rotated', at: expect.any(String), status: 'delivered', httpStatus: 200 },
      {
        event: 'key.rotated',
        at: expect.any(String),
        status: 'retrying',
        httpStatus: 500,
        error: 'HTTP 500: {"error":"try later"}',
      },
    ]);
  });

  it('a flood of refusals is one message per route of the proxy, however many calls and flushes', async () => {
    for (let batch = 0; batch < 4; batch += 1) {
      for (let i = 1; i <= 10; i += 1) await refuse(`/api/v3/movie/${batch * 10 + i}`);
      // Each batch in a flush of its own: the warning's count shows it written.
      await warningsUntil(`batch ${batch + 1} written`, (w) =>
        w.some((x) => x.route === '/api/v3/movie/{id}' && x.count === (batch + 1) * 10),
      );
    }
    for (let i = 0; i < 3; i += 1) await refuse('/api/v3/calendar');
    await warningsUntil('calendar written', (w) => w.some((x) => x.route === '/api/v3/calendar' && x.count === 3));
    // A later event to the same webhook arrives after everything raised before it.
    await rotate().then((key) => (proxy = { ...proxy, key }));
    await receiver.waitFor('the second rotation', () => events(PATHS.json, 'key.rotated').length === 2);
    expect(
      events(PATHS.json, 'warning.new').map((d) => [d.title, d.data['appName'], d.data['method'], d.data['route']]),
    ).toEqual([
      ['Refused: GET /api/v3/movie/{id}', 'Overseerr', 'GET', '/api/v3/movie/{id}'],
      ['Refused: GET /api/v3/calendar', 'Overseerr', 'GET', '/api/v3/calendar'],
    ]);
  });

  it('service.unreachable when a service stops answering its status endpoint, service.recovered when it is back: once each', async () => {
    const port = shows.port;
    const shown = (event: string) => events(PATHS.json, event).filter((d) => d.data['serviceName'] === 'Shows');
    // Each webhook is delivered on its own: wait for the Discord one too, not the first that arrives.
    const discordTitles = () => receiver.at(PATHS.discord).map((r) => (r.json as DiscordBody).embeds[0].title);
    await shows.stop();
    const [down] = await receiver.waitFor(
      'service.unreachable',
      () =>
        shown('service.unreachable').length > 0 &&
        discordTitles().includes('Unreachable: Shows') &&
        shown('service.unreachable'),
    );
    expect(down).toMatchObject({ title: 'Unreachable: Shows', severity: 'error', data: { serviceType: 'sonarr' } });
    // Refused once it is down; reset when a check was on a connection it closed while stopping.
    expect(String(down.data['error'])).toMatch(/\((ECONNREFUSED|ECONNRESET)\)/);
    shows = await FakeServarr.start({ type: 'sonarr', instanceName: 'Shows', apiKey: shows.options.apiKey, port });
    await receiver.waitFor(
      'service.recovered',
      () => shown('service.recovered').length > 0 && discordTitles().includes('Reachable again: Shows'),
    );
    // Checked every second all along: a message per change of state, not per check.
    expect(shown('service.unreachable')).toHaveLength(1);
    expect(shown('service.recovered')).toHaveLength(1);
    expect(discordTitles()).toEqual(expect.arrayContaining(['Unreachable: Shows', 'Reachable again: Shows']));
    expect(events(PATHS.json, 'service.unreachable').filter((d) => d.data['serviceName'] === 'Movies')).toEqual([]);
  });

  it('lists each webhook’s attempts newest first, a page at a time', async () => {
    const all = (await attempts(ids.json, '?limit=200')).items;
    expect(all.length).toBeGreaterThanOrEqual(7);
    expect(all.at(-1)).toMatchObject({ event: 'test', status: 'delivered', httpStatus: 200 });
    const times = all.map((a) => Date.parse(a.at));
    expect([...times].sort((a, b) => b - a)).toEqual(times);
    const pages: NotificationAttemptDto[][] = [];
    let cursor: string | null = null;
    do {
      const page: Page<NotificationAttemptDto> = await attempts(
        ids.json,
        `?limit=2${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
      );
      pages.push(page.items);
      cursor = page.nextCursor;
    } while (cursor);
    expect(pages.slice(0, -1).every((p) => p.length === 2)).toBe(true);
    expect(pages.flat()).toEqual(all);
    await admin.request('GET', `${SETTINGS}/${ids.json}/attempts?limit=201`, undefined, [400]);
    await admin.request('GET', `${SETTINGS}/00000000-0000-4000-8000-000000000000/attempts`, undefined, [404]);
  });

  it('never wrote a webhook URL to its log', () => {
    expect(server.output()).toContain('request completed');
    expect(server.output()).not.toContain(TOKEN);
  });
});
