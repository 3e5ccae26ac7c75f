import type { CreatedTokenResponse } from '@arrbiter/contracts';
import { BEARER_FAILURES_GLOBAL, FAILURES_PER_USERNAME } from '@arrbiter/server/auth';
import { startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

/**
 * Under TRUST_PROXY=true every client picks its own address (X-Forwarded-For): the throttles that
 * key on the address alone are bypassed by rotating it. These are the limits that ignore it.
 */
describe('throttles that a rotating X-Forwarded-For does not bypass (TRUST_PROXY=true)', () => {
  let t: TestApp;
  let token: string;
  let address = 0;
  /** A fresh "client address" for each request, as an attacker rotating X-Forwarded-For sends. */
  const nextAddress = () => {
    address += 1;
    return `198.51.${Math.floor(address / 250)}.${(address % 250) + 1}`;
  };
  const signIn = (password: string, cookie?: string) => {
    const call = t.http
      .post('/api/auth/sign-in')
      .set('Origin', t.config.publicOrigin)
      .set('X-Forwarded-For', nextAddress());
    if (cookie) call.set('Cookie', cookie);
    return call.send({ username: TEST_ADMIN.username, password });
  };

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none', TRUST_PROXY: 'true' });
    // Made before the owner's username is in back-off (the test app's sign-in has no device cookie).
    const owner = await t.admin();
    token = (
      (await owner.post('/api/admin/v1/tokens', { name: 'ok', role: 'viewer' }).expect(201))
        .body as CreatedTokenResponse
    ).token;
  });
  afterAll(() => t?.close());

  it('delays wrong passwords for one username from ever-new addresses; a known device still gets in', async () => {
    // A device the owner signed in from before keeps a device cookie.
    const earlier = await signIn(TEST_ADMIN.password).expect(200);
    const device = ([] as string[])
      .concat(earlier.headers['set-cookie'] ?? [])
      .find((c) => c.startsWith('arrbiter_device='))
      ?.split(';')[0];

    const statuses: number[] = [];
    for (let i = 0; i < 40; i += 1) statuses.push((await signIn(`wrong password ${i}`)).status);
    // The first few are checked (401); then the username is paced: refused before any password check.
    expect(statuses.filter((s) => s === 401).length).toBeLessThanOrEqual(FAILURES_PER_USERNAME + 4);
    expect(statuses.slice(-20)).toEqual(Array(20).fill(429));
    expect(device).toBeDefined();

    // The right password from a new device waits too (Retry-After) …
    const waiting = await signIn(TEST_ADMIN.password).expect(429);
    expect(Number(waiting.headers['retry-after'])).toBeGreaterThan(0);
    // … but from the device that signed in before it goes through at once: no lock-out of the owner.
    await signIn(TEST_ADMIN.password, device).expect(200);
    // A device cookie is no master key: a wrong password with it is still a 401.
    await signIn('still wrong', device).expect(401);
  });

  it('refuses failed bearer tokens past a global ceiling, whatever the address, and never a valid token', async () => {
    const bearer = (value: string) =>
      t.http.get('/api/admin/v1/apps').set('X-Forwarded-For', nextAddress()).set('Authorization', `Bearer ${value}`);
    const statuses: number[] = [];
    for (let i = 0; i < BEARER_FAILURES_GLOBAL + 5; i += 1)
      statuses.push((await bearer(`arb_${'x'.repeat(43)}`)).status);
    expect(statuses.slice(0, BEARER_FAILURES_GLOBAL).every((s) => s === 401)).toBe(true);
    expect(statuses.slice(BEARER_FAILURES_GLOBAL)).toEqual(Array(5).fill(429));
    // The ceiling is hit; a valid token is still accepted, from any address.
    await bearer(token).expect(200);
    await bearer(token).expect(200);
  });
});
