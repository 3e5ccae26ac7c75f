import request from 'supertest';
import { FAILURES_PER_USER_AND_ADDRESS } from '@arrbiter/server/auth';
import { startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

describe('admin sign-in and sessions', () => {
  let t: TestApp;
  let origin: string;

  beforeAll(async () => {
    t = await startTestApp();
    origin = t.config.publicOrigin;
  });
  afterAll(() => t.close());

  const signIn = (body: object, from = origin) =>
    request(t.app.getHttpServer()).post('/api/auth/sign-in').set('Origin', from).send(body);

  it('signs in with the bootstrapped admin and sets a hardened session cookie', async () => {
    const response = await signIn(TEST_ADMIN).expect(200);
    expect(response.body).toEqual({ username: 'admin', role: 'owner', publicUrlSet: true, passwordGenerated: false });
    const cookie = String(response.headers['set-cookie']);
    expect(cookie).toMatch(/^arrbiter_session=[A-Za-z0-9_-]{43};/);
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
  });

  it('accepts the username in any case', async () => {
    await signIn({ ...TEST_ADMIN, username: 'ADMIN' }).expect(200);
  });

  it('answers the session of a signed-in admin and 401 without one', async () => {
    const cookie = await t.signIn();
    await t.http
      .get('/api/auth/session')
      .set('Cookie', cookie)
      .expect(200, { username: 'admin', role: 'owner', publicUrlSet: true, passwordGenerated: false });
    const anonymous = await t.http.get('/api/auth/session').expect(401);
    expect(anonymous.body).toEqual({ statusCode: 401, error: 'Unauthorized', message: 'Sign in to continue' });
    await t.http.get('/api/auth/session').set('Cookie', 'arrbiter_session=forged').expect(401);
  });

  it('refuses a wrong password or an unknown user with the same 401', async () => {
    const wrong = await signIn({ username: 'admin', password: 'not the password' }).expect(401);
    const unknown = await signIn({ username: 'nobody', password: 'not the password' }).expect(401);
    expect(wrong.body).toEqual(unknown.body);
    expect(wrong.headers['set-cookie']).toBeUndefined();
  });

  it('rejects a malformed body with 400 naming the field', async () => {
    const response = await signIn({ username: 'admin' }).expect(400);
    expect(response.body.message).toEqual(expect.arrayContaining([expect.stringMatching(/^password /)]));
    await signIn({ ...TEST_ADMIN, role: 'root' }).expect(400);
  });

  it('signs out: the cookie stops working at once', async () => {
    const cookie = await t.signIn();
    await t.http.post('/api/auth/sign-out').set('Origin', origin).set('Cookie', cookie).expect(204);
    await t.http.get('/api/auth/session').set('Cookie', cookie).expect(401);
  });

  it('throttles failed sign-ins per username and client address with 429 and Retry-After', async () => {
    const user = { username: 'admin', password: 'wrong password!' };
    for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS; i += 1) {
      // The first attempts are ordinary failures (the earlier test used one of the five).
      const response = await signIn({ username: 'throttled', password: `guess ${i}` });
      expect(response.status).toBe(401);
    }
    const blocked = await signIn({ username: 'throttled', password: 'guess again' }).expect(429);
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
    expect(blocked.body.statusCode).toBe(429);
    // Even the right password is refused while blocked, for that username only.
    await signIn({ username: 'throttled', password: TEST_ADMIN.password }).expect(429);
    await signIn(user).expect(401);
    await signIn(TEST_ADMIN).expect(200);
  });

  describe('origin checks on writes', () => {
    it('refuses a write without Origin or Referer', async () => {
      const response = await request(t.app.getHttpServer()).post('/api/auth/sign-in').send(TEST_ADMIN).expect(403);
      expect(response.body).toMatchObject({ statusCode: 403, error: 'Forbidden' });
    });

    it('refuses a write from a foreign origin, even with a session', async () => {
      const cookie = await t.signIn();
      await signIn(TEST_ADMIN, 'https://evil.example').expect(403);
      await t.http.post('/api/auth/sign-out').set('Origin', 'https://evil.example').set('Cookie', cookie).expect(403);
      await t.http.get('/api/auth/session').set('Cookie', cookie).expect(200);
    });

    it('accepts a matching Referer when Origin is absent', async () => {
      await request(t.app.getHttpServer())
        .post('/api/auth/sign-in')
        .set('Referer', `${origin}/sign-in?next=/apps`)
        .send(TEST_ADMIN)
        .expect(200);
    });
  });
});

describe('concurrent failed sign-ins', () => {
  let t: TestApp;

  // An app of its own: these attempts use up most of the client address's budget.
  beforeAll(async () => {
    t = await startTestApp();
  });
  afterAll(() => t.close());

  it('checks at most the allowed number of passwords for one username and refuses the rest with 429', async () => {
    // `then` sends each at once: all 40 are in flight together.
    const attempts = Array.from({ length: 40 }, (_, i) =>
      request(t.app.getHttpServer())
        .post('/api/auth/sign-in')
        .set('Origin', t.config.publicOrigin)
        .send({ username: 'admin', password: `wrong guess ${i}` })
        .then((response) => response),
    );
    const responses = await Promise.all(attempts);
    const statuses = responses.map((response) => response.status);
    // Atomic reservation before the password check: exactly the allowed number are checked (401).
    expect(statuses.filter((status) => status === 401)).toHaveLength(FAILURES_PER_USER_AND_ADDRESS);
    expect(statuses.filter((status) => status === 429)).toHaveLength(40 - FAILURES_PER_USER_AND_ADDRESS);
    for (const response of responses.filter((r) => r.status === 429)) {
      expect(Number(response.headers['retry-after'])).toBeGreaterThan(0);
    }
  });
});

describe('admin sessions behind https and extra origins', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ PUBLIC_URL: 'https://arrbiter.example.com', ALLOWED_ORIGINS: 'https://other.example' });
  });
  afterAll(() => t.close());

  it('marks the cookie Secure and accepts ALLOWED_ORIGINS', async () => {
    const response = await request(t.app.getHttpServer())
      .post('/api/auth/sign-in')
      .set('Origin', 'https://other.example')
      .send(TEST_ADMIN)
      .expect(200);
    expect(String(response.headers['set-cookie'])).toMatch(/; Secure/);
    expect(response.headers['strict-transport-security']).toBeDefined();
  });
});
