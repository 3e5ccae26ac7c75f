import { startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

describe('structured logs', () => {
  let t: TestApp;

  beforeAll(async () => {
    t = await startTestApp({ LOG_LEVEL: 'trace' });
  });
  afterAll(() => t.close());

  it('log requests as JSON without passwords, cookies, API keys or Authorization', async () => {
    const headerKey = 'aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa';
    const queryKey = 'bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb';
    const otherCaseKey = 'cccccccccccccccccccccccccccccccc';
    const bearer = 'dddddddddddddddddddddddddddddddd';
    const cookie = await t.signIn();
    const token = cookie.split('=')[1];
    await t.http
      .get(`/api/auth/session?apikey=${queryKey}&ApiKey=${otherCaseKey}&keep=1`)
      .set('Cookie', cookie)
      .set('X-Api-Key', headerKey)
      .set('Authorization', `Bearer ${bearer}`)
      .expect(200);
    await t.http
      .post('/api/auth/sign-in')
      .set('Origin', t.config.publicOrigin)
      .send({ username: 'admin', password: 'a wrong but secret password' })
      .expect(401);

    const text = t.logs.join('');
    for (const secret of [
      TEST_ADMIN.password,
      'a wrong but secret password',
      token,
      headerKey,
      queryKey,
      otherCaseKey,
      bearer,
    ]) {
      expect(text).not.toContain(secret);
    }
    const lines = t.logs.map((line) => JSON.parse(line) as { req?: { url?: string } });
    expect(lines.map((l) => l.req?.url)).toContain('/api/auth/session?apikey=[REDACTED]&ApiKey=[REDACTED]&keep=1');
  });
});
