import type { UnauthorizedCallsResponse } from '@arrbiter/contracts';
import { eventually, seedProxy } from '@arrbiter/server/testing';
import { UsageRecorder } from '@arrbiter/server/usage';
import { DataSource } from 'typeorm';
import { ProxiedUpstream, proxiedUpstream } from '../testing/proxied-upstream';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

const OVERRIDES = { '/api/v3/movie': ['get'] };
/** Keys callers present that are not a proxy's: none of them, nor any part, may be stored or answered. */
const WRONG_HEADER_KEY = 'wrongHEADERkey-qwrtypsdfghjklzxcv';
const WRONG_QUERY_KEY = 'wrongQUERYkey-mnbvcxzlkjhgfdsapoi';
/** A key pasted where the slug goes: an unknown slug, which is not kept either. */
const KEY_AS_SLUG = 'keyASslug-zyxwvutsrqponmlkjihgf';
const UA = 'Overseerr/1.33';

/** Every run of `length` characters of `key`. */
function pieces(key: string, length = 8): string[] {
  return Array.from({ length: key.length - length + 1 }, (_, i) => key.slice(i, i + length));
}

describe('calls with a wrong or missing key', () => {
  let t: TestApp;
  let admin: AdminClient;
  let setup: ProxiedUpstream;
  let sleepy: { appId: string; key: string };

  const unauthorized = async (query = '') =>
    (await admin.get(`/api/admin/v1/usage/unauthorized${query}`).expect(200)).body as UnauthorizedCallsResponse;

  beforeAll(async () => {
    // Behind a reverse proxy on loopback: the caller's address is the one it forwards.
    t = await startTestApp({ OPENAPI_SOURCES: 'none', TRUST_PROXY: 'loopback' });
    admin = await t.admin();
    setup = await proxiedUpstream(admin, 'keyed', 'Keyed', OVERRIDES);
    const seeded = await seedProxy(admin, { service: setup.service, app: { name: 'Sleepy', slug: 'sleepy' } });
    sleepy = { appId: seeded.app.id, key: seeded.proxy.key };
    await admin.patch(`/api/admin/v1/apps/${seeded.app.id}`, { active: false }).expect(200);
  });
  afterAll(async () => {
    await setup?.upstream.stop();
    await t?.close();
  });

  it('counts a burst of 401s per app and "unknown app", with the last address and User-Agent, never a key', async () => {
    const recorder = t.app.get(UsageRecorder);
    const dataSource = t.app.get(DataSource);
    // Let through: not counted.
    await t.http.get('/proxy/keyed/api/v3/movie').set('X-Api-Key', setup.proxy.key).expect(200);
    // A wrong key, in the header and in the query, and no key at all.
    for (let i = 0; i < 3; i += 1)
      await t.http
        .get('/proxy/keyed/api/v3/movie')
        .set('X-Api-Key', WRONG_HEADER_KEY)
        .set('User-Agent', 'Overseerr/1.32')
        .set('X-Forwarded-For', '10.0.0.4')
        .expect(401);
    await t.http.get(`/proxy/keyed/api/v3/movie?apikey=${WRONG_QUERY_KEY}`).set('User-Agent', UA).expect(401);
    await t.http.get('/proxy/keyed/api/v3/movie').set('User-Agent', UA).set('X-Forwarded-For', '10.0.0.5').expect(401);
    // An inactive app's own key (refused once the registry has the change).
    await eventually('the inactive app refuses its key', async () => {
      const response = await t.http
        .get('/proxy/sleepy/api/v3/movie')
        .set('X-Api-Key', sleepy.key)
        .set('User-Agent', 'Lidarr/2');
      return response.status === 401;
    });
    // Slugs no app has.
    await t.http.get('/proxy/nobody/api/v3/movie').set('X-Api-Key', WRONG_HEADER_KEY).expect(401);
    await t.http
      .get(`/proxy/${KEY_AS_SLUG}/api/v3/movie`)
      .set('User-Agent', 'x'.repeat(300))
      .set('X-Forwarded-For', '10.0.0.9')
      .expect(401);

    // Written behind: in the table after the recorder's write, before anyone asks.
    await recorder.flush();
    const rows = (await dataSource.query(
      'SELECT app_id, count, last_address, last_user_agent FROM unauthorized_usage ORDER BY count DESC',
    )) as { app_id: string | null; count: number; last_address: string | null; last_user_agent: string | null }[];
    expect(rows).toEqual([
      { app_id: setup.app.id, count: 5, last_address: '10.0.0.5', last_user_agent: UA },
      { app_id: null, count: 2, last_address: '10.0.0.9', last_user_agent: 'x'.repeat(200) },
      {
        app_id: sleepy.appId,
        count: 1,
        last_address: expect.stringMatching(/127\.0\.0\.1$/),
        last_user_agent: 'Lidarr/2',
      },
    ]);

    const answer = await unauthorized();
    expect(answer.items).toEqual([
      {
        appId: setup.app.id,
        appName: 'Keyed',
        slug: 'keyed',
        count: 5,
        lastSeen: expect.any(String),
        lastAddress: '10.0.0.5',
        lastUserAgent: UA,
      },
      {
        appId: null,
        appName: null,
        slug: null,
        count: 2,
        lastSeen: expect.any(String),
        lastAddress: '10.0.0.9',
        lastUserAgent: 'x'.repeat(200),
      },
      expect.objectContaining({ appId: sleepy.appId, appName: 'Sleepy', slug: 'sleepy', count: 1 }),
    ]);
    expect(Date.parse(answer.to) - Date.parse(answer.from)).toBeGreaterThan(23 * 3_600_000);

    // No part of any key presented, in the table or the answer.
    const everything =
      JSON.stringify(await dataSource.query('SELECT * FROM unauthorized_usage')) + JSON.stringify(answer);
    for (const key of [WRONG_HEADER_KEY, WRONG_QUERY_KEY, KEY_AS_SLUG, sleepy.key, setup.proxy.key])
      for (const piece of pieces(key)) expect([key, everything.includes(piece)]).toEqual([key, false]);

    // Later calls add to the stored rows.
    await t.http.get('/proxy/keyed/api/v3/movie').set('User-Agent', 'Overseerr/1.34').expect(401);
    const again = await unauthorized(`?appId=${setup.app.id}`);
    expect(again.items).toEqual([
      expect.objectContaining({ appId: setup.app.id, count: 6, lastUserAgent: 'Overseerr/1.34' }),
    ]);
    expect((await dataSource.query('SELECT count(*)::int AS n FROM unauthorized_usage'))[0].n).toBe(3);
  });

  it('checks its query and asks for a signed-in admin', async () => {
    const iso = (ms: number) => new Date(ms).toISOString();
    const now = t.clock.now();
    await admin.get('/api/admin/v1/usage/unauthorized?appId=not-an-id').expect(400);
    await admin.get(`/api/admin/v1/usage/unauthorized?from=${iso(now - 91 * 24 * 3_600_000)}`).expect(400);
    expect((await unauthorized(`?from=${iso(now - 90 * 24 * 3_600_000)}`)).items).toHaveLength(3);
    // A period before any call: nothing.
    expect((await unauthorized(`?from=${iso(now - 48 * 3_600_000)}&to=${iso(now - 30 * 3_600_000)}`)).items).toEqual(
      [],
    );
    await t.http.get('/api/admin/v1/usage/unauthorized').expect(401);
  });
});
