import { createHash } from 'node:crypto';
import type {
  ChangeDto,
  Page,
  ProblemDetails,
  ProxyConnectionDto,
  ProxyDto,
  RotateKeyResponse,
} from '@arrbiter/contracts';
import { eventually } from '@arrbiter/server/testing';
import { DataSource } from 'typeorm';
import { ProxiedUpstream, proxiedUpstream } from '../testing/proxied-upstream';
import { AdminClient, startTestApp, TestApp } from '../testing/test-app';

const MINUTE = 60_000;

describe('overlapping key rotation', () => {
  let t: TestApp;
  let admin: AdminClient;
  let setup: ProxiedUpstream;
  /** Every key this suite handed out: none may ever be logged. */
  const keys: string[] = [];

  const path = (suffix = '') => `/api/admin/v1/proxies/${setup.proxy.id}${suffix}`;
  const rotate = async (body: object = {}): Promise<RotateKeyResponse> => {
    const rotated = (await admin.post(path('/rotate-key'), body).expect(200)).body as RotateKeyResponse;
    keys.push(rotated.key);
    return rotated;
  };
  /** Where the server listens: the proxy route is called over real connections, as clients do. */
  let base: string;
  const call = async (key: string, path = '/api/v3/movie') => {
    const response = await fetch(`${base}/proxy/rotating${path}`, { headers: { 'x-api-key': key } });
    return { status: response.status, body: await response.text() };
  };
  const status = async (key: string) => (await call(key)).status;
  const proxy = async () => (await admin.get(path()).expect(200)).body as ProxyConnectionDto;
  const changes = async () =>
    (
      (await admin.get(`/api/admin/v1/changes?objectId=${setup.proxy.id}&limit=100`).expect(200))
        .body as Page<ChangeDto>
    ).items;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    admin = await t.admin();
    setup = await proxiedUpstream(admin, 'rotating', 'Rotating', { '/api/v3/movie': ['get'] });
    keys.push(setup.proxy.key);
    base = await t.listen();
  });
  afterAll(async () => {
    await setup?.upstream.stop();
    await t?.close();
  });

  it('refuses a grace period that is not a whole number of minutes from 0 to 10080, naming it, and changes nothing', async () => {
    for (const graceMinutes of [-1, 10_081, 1.5, '60', null, true]) {
      const response = await admin.post(path('/rotate-key'), { graceMinutes }).expect(400);
      expect([graceMinutes, JSON.stringify(response.body)]).toEqual([
        graceMinutes,
        expect.stringContaining('graceMinutes'),
      ]);
    }
    const unknown = await admin.post(path('/rotate-key'), { grace: 5 }).expect(400);
    expect(JSON.stringify(unknown.body)).toContain('property grace should not exist');
    expect(await status(setup.proxy.key)).toBe(200);
    expect((await proxy()).key).toBe(setup.proxy.key);
  });

  it('rotates without a grace period by default: the old key stops at once', async () => {
    const old = (await proxy()).key;
    const rotated = await rotate();
    expect(rotated.previousKeyValidUntil).toBeNull();
    expect(await status(old)).toBe(401);
    expect(await status(rotated.key)).toBe(200);
    expect((await proxy()).previousKey).toBeNull();
  });

  it('with a grace period both keys work; calls with the old one are counted; the old key is never shown', async () => {
    const old = (await proxy()).key;
    const before = t.clock.now();
    const rotated = await rotate({ graceMinutes: 90 });
    const validUntil = Date.parse(rotated.previousKeyValidUntil ?? '');
    expect(validUntil).toBeGreaterThanOrEqual(before + 90 * MINUTE);
    expect(validUntil).toBeLessThanOrEqual(t.clock.now() + 90 * MINUTE);

    expect(await status(rotated.key)).toBe(200);
    expect(await status(old)).toBe(200);
    // The query parameter too; and a refused call with it counts as well (the client still uses it).
    expect((await fetch(`${base}/proxy/rotating/api/v3/movie?apikey=${old}`)).status).toBe(200);
    expect(await status(rotated.key)).toBe(200);
    expect((await call(old, '/api/v3/calendar')).status).toBe(403);
    // Upstream, every one of them carried the upstream's key, never a proxy key.
    expect(setup.upstream.requests.at(-1)?.headers['x-api-key']).toBe(setup.upstream.options.apiKey);

    await eventually('the uses of the old key are written', async () => (await proxy()).previousKey?.uses === 3);
    const shown = await proxy();
    expect(shown.key).toBe(rotated.key);
    expect(shown.previousKey).toEqual({
      validUntil: rotated.previousKeyValidUntil,
      uses: 3,
      lastUsedAt: expect.any(String),
    });
    const listed = (await admin.get(`/api/admin/v1/apps/${setup.app.id}/proxies`).expect(200)).body as ProxyDto[];
    expect(listed[0].previousKey).toEqual(shown.previousKey);
    for (const body of [shown, listed, await changes()]) expect(JSON.stringify(body)).not.toContain(old);

    // Stored like the current key: a digest to look it up and a ciphertext, never the key itself.
    const [row] = (await t.app
      .get(DataSource)
      .query('SELECT previous_key_digest, previous_key_ciphertext FROM proxy WHERE id = $1', [setup.proxy.id])) as {
      previous_key_digest: string;
      previous_key_ciphertext: string;
    }[];
    expect(row.previous_key_digest).toBe(createHash('sha256').update(old).digest('hex'));
    expect(row.previous_key_ciphertext).not.toContain(old);

    const [rotation] = await changes();
    expect(rotation).toMatchObject({ action: 'proxy.key-rotated', actor: 'admin' });
    expect(rotation.summary).toContain(`the old key keeps working until ${rotated.previousKeyValidUntil} (90 min)`);
  });

  it('stops the old key when its grace period ends, with no change to tell it (the time is checked per call)', async () => {
    const current = (await proxy()).key;
    const old = keys.at(-2) as string;
    t.clock.advance(89 * MINUTE);
    expect(await status(old)).toBe(200);
    t.clock.advance(2 * MINUTE);
    expect(await status(old)).toBe(401);
    expect(await status(current)).toBe(200);
    expect((await proxy()).previousKey).toBeNull();
    // Nothing left to end.
    await admin.delete(path('/previous-key')).expect(404);
  });

  it('a rotation during a grace period replaces the previous key: the older one stops at once', async () => {
    const first = (await proxy()).key;
    const second = (await rotate({ graceMinutes: 60 })).key;
    expect(await status(first)).toBe(200);
    const third = (await rotate({ graceMinutes: 30 })).key;
    expect([await status(first), await status(second), await status(third)]).toEqual([401, 200, 200]);
    expect((await proxy()).previousKey?.uses).toBe(0);
    expect((await changes())[0].summary).toContain('the key it had replaced stopped working');
  });

  it('ends the grace period on request: the old key is refused like an unknown one, and it is recorded', async () => {
    const old = keys.at(-2) as string;
    expect(await status(old)).toBe(200);
    await admin.delete(path('/previous-key')).expect(204);
    const refused = await call(old);
    const unknown = await call('0123456789abcdef0123456789abcdef');
    expect(refused).toEqual(unknown);
    expect(refused.status).toBe(401);
    expect((JSON.parse(refused.body) as ProblemDetails).status).toBe(401);
    expect(await status((await proxy()).key)).toBe(200);
    expect((await proxy()).previousKey).toBeNull();
    await admin.delete(path('/previous-key')).expect(404);
    const [ended] = await changes();
    expect(ended).toMatchObject({ action: 'proxy.previous-key-ended', actor: 'admin' });
    expect(ended.summary).toContain('Grace period ended early');
  });

  it('answers 404 for the previous key of a proxy that does not exist', async () => {
    await admin.delete('/api/admin/v1/proxies/3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f/previous-key').expect(404);
    await admin
      .post('/api/admin/v1/proxies/3f2b1c9e-8d7a-4b6c-9e5f-1a2b3c4d5e6f/rotate-key', { graceMinutes: 5 })
      .expect(404);
  });

  it('never writes a key to the log', () => {
    const logs = t.logs.join('');
    expect(logs).toContain('proxy request');
    for (const key of keys) expect(logs).not.toContain(key);
  });
});
