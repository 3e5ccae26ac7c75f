import { AdminUsersService } from '@arrbiter/server/auth';
import { startTestApp, TestApp } from '../testing/test-app';

/** The first owner with a generated password, and the "choose your own password" step it leads to. */
describe('first sign-in with a generated password', () => {
  let t: TestApp;
  let stderr: string;
  let password: string;

  beforeAll(async () => {
    const written: string[] = [];
    const spy = jest.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => {
      written.push(String(chunk));
      return true;
    });
    try {
      // LOG_LEVEL=warn: the framed block is written also when most start-up lines are not.
      t = await startTestApp({ ADMIN_USERNAME: undefined, ADMIN_PASSWORD: undefined, LOG_LEVEL: 'warn' });
    } finally {
      spy.mockRestore();
    }
    stderr = written.join('');
    password = /generated password: (\S+)/.exec(stderr)?.[1] ?? '';
  });
  afterAll(() => t?.close());

  const as = (cookie: string) => ({
    get: (path: string) => t.http.get(path).set('Cookie', cookie),
    post: (path: string, body: object = {}) =>
      t.http.post(path).set('Cookie', cookie).set('Origin', t.config.publicOrigin).send(body),
    put: (path: string, body: object = {}) =>
      t.http.put(path).set('Cookie', cookie).set('Origin', t.config.publicOrigin).send(body),
  });
  const signIn = (username: string, pass: string) =>
    t.http.post('/api/auth/sign-in').set('Origin', t.config.publicOrigin).send({ username, password: pass });
  const cookieOf = (response: { headers: Record<string, unknown> }) =>
    String(([] as string[]).concat(response.headers['set-cookie'] as string[])[0]).split(';')[0];

  it('prints the framed block on standard error at LOG_LEVEL=warn, never in the JSON log', () => {
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    expect(stderr).toContain('='.repeat(78));
    expect(stderr).toContain('Arrbiter created the first administrator.');
    expect(t.logs.join('')).not.toContain(password);
  });

  it('says so in the session; the owner keeps it once, remembered across sign-ins', async () => {
    const first = await signIn('admin', password).expect(200);
    expect(first.body).toEqual({ username: 'admin', role: 'owner', publicUrlSet: true, passwordGenerated: true });
    const owner = as(cookieOf(first));
    await owner
      .get('/api/auth/session')
      .expect(200)
      .expect(({ body }) => expect(body.passwordGenerated).toBe(true));
    // An owner is asked, not held back: the admin API answers.
    await owner.get('/api/admin/v1/admins').expect(200);

    await owner.post('/api/auth/password/keep').expect(204);
    await owner.get('/api/auth/session').expect(({ body }) => expect(body.passwordGenerated).toBe(false));
    const again = await signIn('admin', password).expect(200);
    expect(again.body.passwordGenerated).toBe(false);
    const conflict = await owner.post('/api/auth/password/keep').expect(409);
    expect(conflict.body.message).toMatch(/not sign in with a generated password/);
    const changes = await owner.get('/api/admin/v1/changes?limit=50').expect(200);
    expect(JSON.stringify(changes.body)).toContain('account.password-kept');
  });

  it('holds a non-owner reset with a generated password off the admin API until they choose one', async () => {
    const owner = as(cookieOf(await signIn('admin', password).expect(200)));
    await owner
      .post('/api/admin/v1/admins', { username: 'ed', password: 'editor passphrase 1', role: 'editor' })
      .expect(201);
    const users = t.app.get(AdminUsersService);

    // Reset with a given password (`--password-stdin`): not a generated one.
    await users.resetPassword('ed', 'a given passphrase 1');
    const given = await signIn('ed', 'a given passphrase 1').expect(200);
    expect(given.body.passwordGenerated).toBe(false);
    await as(cookieOf(given)).get('/api/admin/v1/apps').expect(200);

    // Reset without one (what `reset-password ed` does): generated, and the editor must choose.
    const generated = await users.resetPassword('ed');
    const signedIn = await signIn('ed', generated).expect(200);
    expect(signedIn.body).toEqual({ username: 'ed', role: 'editor', publicUrlSet: true, passwordGenerated: true });
    const ed = as(cookieOf(signedIn));
    const refused = await ed.get('/api/admin/v1/apps').expect(403);
    expect(refused.body.message).toMatch(/generated password: choose your own password/);
    // The auth endpoints stay open; only an owner may keep it.
    await ed.get('/api/auth/session').expect(200);
    await ed.get('/api/auth/sessions').expect(200);
    const keep = await ed.post('/api/auth/password/keep').expect(403);
    expect(keep.body.message).toMatch(/needs the owner role/);

    await ed.put('/api/auth/password', { currentPassword: generated, newPassword: 'chosen by ed 1234' }).expect(204);
    await ed.get('/api/auth/session').expect(({ body }) => expect(body.passwordGenerated).toBe(false));
    await ed.get('/api/admin/v1/apps').expect(200);
    expect((await signIn('ed', 'chosen by ed 1234').expect(200)).body.passwordGenerated).toBe(false);
  });

  it('asks an owner reset by the command again, until they keep or change it', async () => {
    const generated = await t.app.get(AdminUsersService).resetPassword('admin');
    const signedIn = await signIn('admin', generated).expect(200);
    expect(signedIn.body.passwordGenerated).toBe(true);
    const owner = as(cookieOf(signedIn));
    await owner
      .put('/api/auth/password', { currentPassword: generated, newPassword: 'owner chose this one' })
      .expect(204);
    await owner.get('/api/auth/session').expect(({ body }) => expect(body.passwordGenerated).toBe(false));
    await owner.post('/api/auth/password/keep').expect(409);
  });
});
