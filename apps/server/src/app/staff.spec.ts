import type {
  AdminAccountDto,
  ApiTokenDto,
  AppDto,
  AuthSessionDto,
  ChangeDto,
  CreatedTokenResponse,
  Page,
  ProxyDetailsDto,
} from '@arrbiter/contracts';
import { ConflictException } from '@nestjs/common';
import type { AdminPrincipal } from '@arrbiter/server/access';
import { AccountsService, BEARER_FAILURES_PER_ADDRESS } from '@arrbiter/server/auth';
import { seedProxy } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import request from 'supertest';
import { DataSource } from 'typeorm';
import { rawRequest } from '../testing/raw-http';
import { AdminClient, found, startTestApp, TEST_ADMIN, TestApp } from '../testing/test-app';

const VIEWER = { username: 'vera', password: 'viewer passphrase 1' };
const EDITOR = { username: 'ed', password: 'editor passphrase 1' };

/** Admin requests made with a given session cookie (and the allowed Origin on writes). */
function client(t: TestApp, cookie: string): AdminClient {
  const server = t.app.getHttpServer();
  const origin = t.config.publicOrigin;
  return {
    get: (path) => request(server).get(path).set('Cookie', cookie),
    post: (path, body = {}) => request(server).post(path).set('Cookie', cookie).set('Origin', origin).send(body),
    put: (path, body = {}) => request(server).put(path).set('Cookie', cookie).set('Origin', origin).send(body),
    patch: (path, body = {}) => request(server).patch(path).set('Cookie', cookie).set('Origin', origin).send(body),
    delete: (path) => request(server).delete(path).set('Cookie', cookie).set('Origin', origin),
  };
}

describe('admin staff: accounts, roles, sessions, passwords and API tokens', () => {
  let t: TestApp;
  let owner: AdminClient;
  let upstream: FakeServarr;
  let proxyId: string;
  let appId: string;

  const bearer = (token: string) => ({
    get: (path: string) => request(t.app.getHttpServer()).get(path).set('Authorization', `Bearer ${token}`),
    // No Origin: a token is no ambient credential.
    post: (path: string, body: object = {}) =>
      request(t.app.getHttpServer()).post(path).set('Authorization', `Bearer ${token}`).send(body),
  });

  const createToken = async (as: AdminClient, name: string, role: string, expiresAt?: string) =>
    ((await as.post('/api/admin/v1/tokens', { name, role, expiresAt }).expect(201)).body as CreatedTokenResponse).token;

  beforeAll(async () => {
    t = await startTestApp({ OPENAPI_SOURCES: 'none' });
    owner = await t.admin();
    upstream = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    const { app, proxy } = await seedProxy(owner, { upstream, app: { name: 'Homepage', slug: 'homepage' } });
    appId = app.id;
    proxyId = proxy.id;
    await owner.post('/api/admin/v1/admins', { ...VIEWER, role: 'viewer' }).expect(201);
    await owner.post('/api/admin/v1/admins', { ...EDITOR, role: 'editor' }).expect(201);
  });
  afterAll(async () => {
    await upstream?.stop();
    await t?.close();
  });

  describe('accounts (owners only)', () => {
    it('makes the bootstrapped administrator an owner and lists every account without a secret', async () => {
      await owner
        .get('/api/auth/session')
        .expect(200, { username: 'admin', role: 'owner', publicUrlSet: true, passwordGenerated: false });
      const accounts = (await owner.get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[];
      expect(accounts.map((a) => [a.username, a.role, a.hasPassword])).toEqual([
        ['admin', 'owner', true],
        ['ed', 'editor', true],
        ['vera', 'viewer', true],
      ]);
      expect(JSON.stringify(accounts)).not.toMatch(/argon2|passwordHash/);
    });

    it('validates new accounts: 400 naming the field, 409 for a name in use (any case)', async () => {
      const bad = await owner.post('/api/admin/v1/admins', { username: 'x y', password: 'short', role: 'root' });
      expect(bad.status).toBe(400);
      expect(bad.body.message).toEqual(
        expect.arrayContaining([
          expect.stringMatching(/^username /),
          expect.stringMatching(/^password /),
          expect.stringMatching(/^role /),
        ]),
      );
      await owner.post('/api/admin/v1/admins', { username: 'x', role: 'viewer', admin: true }).expect(400);
      await owner.post('/api/admin/v1/admins', { username: 'VERA', role: 'viewer' }).expect(409);
    });

    it('creates an account without a password (single sign-on or forward-auth only)', async () => {
      const created = (await owner.post('/api/admin/v1/admins', { username: 'sso-only', role: 'viewer' }).expect(201))
        .body as AdminAccountDto;
      expect(created).toMatchObject({ username: 'sso-only', role: 'viewer', hasPassword: false, sso: false });
      // No password: no password sign-in, whatever is typed.
      await t.http
        .post('/api/auth/sign-in')
        .set('Origin', t.config.publicOrigin)
        .send({ username: 'sso-only', password: '' })
        .expect(400);
      await t.http
        .post('/api/auth/sign-in')
        .set('Origin', t.config.publicOrigin)
        .send({ username: 'sso-only', password: 'anything at all' })
        .expect(401);
      await owner.delete(`/api/admin/v1/admins/${created.id}`).expect(204);
    });

    it('keeps the last owner: no demotion, no deletion (409), and not one’s own account', async () => {
      const accounts = (await owner.get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[];
      const me = found(
        accounts.find((a) => a.username === 'admin'),
        'admin',
      );
      const demote = await owner.patch(`/api/admin/v1/admins/${me.id}`, { role: 'editor' }).expect(409);
      expect(demote.body.message).toMatch(/last owner/);
      await owner.delete(`/api/admin/v1/admins/${me.id}`).expect(409);
      expect(((await owner.get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[]).length).toBe(3);
    });

    it('keeps one owner when two owners demote each other at the same moment', async () => {
      const second = (
        await owner
          .post('/api/admin/v1/admins', { username: 'olga', password: 'second owner passphrase', role: 'owner' })
          .expect(201)
      ).body as AdminAccountDto;
      const accounts = (await owner.get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[];
      const me = found(
        accounts.find((a) => a.username === 'admin'),
        'admin',
      );
      // Both changes are already let in (two owners), then race for the accounts' lock: the second
      // to take it finds one owner left and is refused.
      const accountsService = t.app.get(AccountsService);
      const as = (account: AdminAccountDto): AdminPrincipal => ({
        id: account.id,
        username: account.username,
        role: 'owner',
        credential: 'session',
        actor: account.username,
      });
      const outcomes = await Promise.allSettled([
        accountsService.update(as(me), second.id, { role: 'viewer' }),
        accountsService.update(as(second), me.id, { role: 'viewer' }),
      ]);
      expect(outcomes.map((o) => o.status).sort()).toEqual(['fulfilled', 'rejected']);
      const refused = found(
        outcomes.find((o): o is PromiseRejectedResult => o.status === 'rejected'),
        'the refused change',
      );
      expect(refused.reason).toBeInstanceOf(ConflictException);
      const owners = (await accountsService.list()).filter((x) => x.role === 'owner');
      expect(owners).toHaveLength(1);
      // Put things back for the next tests: admin the owner, olga gone.
      if (owners[0].username !== 'admin') await accountsService.update(as(second), me.id, { role: 'owner' });
      await owner.delete(`/api/admin/v1/admins/${second.id}`).expect(204);
    });

    it('refuses the second of two demotions over HTTP too, whichever guard or lock it meets', async () => {
      const second = (
        await owner
          .post('/api/admin/v1/admins', { username: 'oscar', password: 'third owner passphrase', role: 'owner' })
          .expect(201)
      ).body as AdminAccountDto;
      const oscar = client(t, await t.signIn({ username: 'oscar', password: 'third owner passphrase' }));
      const me = found(
        ((await owner.get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[]).find(
          (a) => a.username === 'admin',
        ),
        'admin',
      );
      const [a, b] = await Promise.all([
        owner.patch(`/api/admin/v1/admins/${second.id}`, { role: 'viewer' }),
        oscar.patch(`/api/admin/v1/admins/${me.id}`, { role: 'viewer' }),
      ]);
      // One wins; the other is refused: by the lock (409), or by its role guard (403) when the winner
      // had already made it a viewer before it was let in.
      const statuses = [a.status, b.status];
      expect(statuses.filter((s) => s === 200)).toHaveLength(1);
      expect(statuses.filter((s) => s === 409 || s === 403)).toHaveLength(1);
      const service = t.app.get(AccountsService);
      const list = await service.list();
      expect(list.filter((x) => x.role === 'owner')).toHaveLength(1);
      if (a.status !== 200) {
        await service.update(
          { id: second.id, username: 'oscar', role: 'owner', credential: 'session', actor: 'oscar' },
          me.id,
          { role: 'owner' },
        );
      }
      await owner.delete(`/api/admin/v1/admins/${second.id}`).expect(204);
    });

    it('ends the sessions of an account whose password an owner sets, and of a deleted account', async () => {
      const temp = (
        await owner
          .post('/api/admin/v1/admins', { username: 'temp', password: 'temporary passphrase', role: 'editor' })
          .expect(201)
      ).body as AdminAccountDto;
      const cookie = await t.signIn({ username: 'temp', password: 'temporary passphrase' });
      await t.http
        .get('/api/auth/session')
        .set('Cookie', cookie)
        .expect(200, { username: 'temp', role: 'editor', publicUrlSet: true, passwordGenerated: false });
      await owner.patch(`/api/admin/v1/admins/${temp.id}`, { password: 'a brand new passphrase' }).expect(200);
      await t.http.get('/api/auth/session').set('Cookie', cookie).expect(401);
      const again = await t.signIn({ username: 'temp', password: 'a brand new passphrase' });
      const token = await createToken(client(t, again), 'temp token', 'editor');
      await owner.delete(`/api/admin/v1/admins/${temp.id}`).expect(204);
      await t.http.get('/api/auth/session').set('Cookie', again).expect(401);
      await bearer(token).get('/api/admin/v1/apps').expect(401);
      const changes = (await owner.get('/api/admin/v1/changes?objectType=account').expect(200)).body as Page<ChangeDto>;
      expect(changes.items.map((c) => c.action)).toEqual(
        expect.arrayContaining(['account.created', 'account.updated', 'account.deleted']),
      );
    });

    it('refuses editors and viewers (403)', async () => {
      const editor = client(t, await t.signIn(EDITOR));
      await editor.get('/api/admin/v1/admins').expect(403);
      await editor.post('/api/admin/v1/admins', { username: 'sneaky', role: 'owner' }).expect(403);
    });
  });

  describe('viewers read everything but secrets', () => {
    let viewer: AdminClient;
    beforeAll(async () => {
      viewer = client(t, await t.signIn(VIEWER));
    });

    it('reads apps, services, proxies and changes', async () => {
      await viewer
        .get('/api/auth/session')
        .expect(200, { username: 'vera', role: 'viewer', publicUrlSet: true, passwordGenerated: false });
      await viewer.get('/api/admin/v1/apps').expect(200);
      await viewer.get('/api/admin/v1/services').expect(200);
      await viewer.get(`/api/admin/v1/proxies/${proxyId}/allowlist`).expect(200);
      await viewer.get('/api/admin/v1/changes').expect(200);
    });

    it('gets a proxy without its key, and 403 on revealing it; an editor gets both', async () => {
      const details = (await viewer.get(`/api/admin/v1/proxies/${proxyId}`).expect(200)).body as ProxyDetailsDto;
      expect(details.proxyUrl).toMatch(/\/proxy\/homepage$/);
      expect(details).not.toHaveProperty('key');
      await viewer.get(`/api/admin/v1/proxies/${proxyId}/key`).expect(403);
      const editor = client(t, await t.signIn(EDITOR));
      const full = (await editor.get(`/api/admin/v1/proxies/${proxyId}`).expect(200)).body as ProxyDetailsDto;
      expect(full.key).toMatch(/^[0-9a-f]{32}$/);
      await editor.get(`/api/admin/v1/proxies/${proxyId}/key`).expect(200, { key: full.key });
    });

    it('cannot write (403), and nothing changes', async () => {
      const refused = await viewer
        .post('/api/admin/v1/apps', { name: 'Nope', slug: 'nope', templateId: null, active: true })
        .expect(403);
      expect(refused.body.message).toMatch(/editor role/);
      await viewer.patch(`/api/admin/v1/proxies/${proxyId}`, { active: false }).expect(403);
      await viewer.put('/api/admin/v1/settings/proxy-defaults', { rateLimit: null, scrub: true }).expect(403);
      await viewer.delete(`/api/admin/v1/apps/${appId}`).expect(403);
      const apps = (await viewer.get('/api/admin/v1/apps').expect(200)).body as Page<AppDto>;
      expect(apps.items.map((a) => a.slug)).toEqual(['homepage']);
    });
  });

  describe('notification settings', () => {
    it('hides webhook URLs from everyone (masked), and lets only owners change or test them', async () => {
      const url = 'https://hooks.example.test/arrbiter/SeCrEtWeBhOoKtOkEn0123456789';
      const saved = await owner
        .put('/api/admin/v1/settings/notifications', {
          webhooks: [{ url, format: 'json', events: ['key.rotated'], enabled: false }],
        })
        .expect(200);
      const id = (saved.body as { webhooks: { id: string }[] }).webhooks[0].id;
      const viewer = client(t, await t.signIn(VIEWER));
      const read = await viewer.get('/api/admin/v1/settings/notifications').expect(200);
      expect(JSON.stringify(read.body)).not.toContain('SeCrEtWeBhOoKtOkEn');
      await viewer.get(`/api/admin/v1/settings/notifications/${id}/attempts`).expect(200);
      const editor = client(t, await t.signIn(EDITOR));
      for (const as of [viewer, editor]) {
        await as.put('/api/admin/v1/settings/notifications', { webhooks: [] }).expect(403);
        await as.post(`/api/admin/v1/settings/notifications/${id}/test`).expect(403);
      }
      const exported = await viewer.get('/api/admin/v1/config/export').expect(200);
      expect(JSON.stringify(exported.body)).not.toContain('SeCrEtWeBhOoKtOkEn');
      await owner.put('/api/admin/v1/settings/notifications', { webhooks: [] }).expect(200);
    });
  });

  describe('the declarative configuration', () => {
    it('lets a viewer export without secrets only (403 with them), and only owners import', async () => {
      const viewer = client(t, await t.signIn(VIEWER));
      const plain = await viewer.get('/api/admin/v1/config/export').expect(200);
      expect(JSON.stringify(plain.body)).not.toContain(upstream.options.apiKey);
      const refused = await viewer.get('/api/admin/v1/config/export?secrets=true').expect(403);
      expect(refused.body.message).toMatch(/editor role/);
      const editor = client(t, await t.signIn(EDITOR));
      const withSecrets = await editor.get('/api/admin/v1/config/export?secrets=true').expect(200);
      expect(JSON.stringify(withSecrets.body)).toContain(upstream.options.apiKey);
      await editor.post('/api/admin/v1/config/import?dryRun=true', withSecrets.body as object).expect(403);
      await viewer.post('/api/admin/v1/config/import?dryRun=true', plain.body as object).expect(403);
      await owner.post('/api/admin/v1/config/import?dryRun=true', withSecrets.body as object).expect(200);
    });
  });

  describe('own account: sessions and password', () => {
    it('lists the caller’s sessions with device, address and last seen, marking the current one', async () => {
      const first = await t.signIn(EDITOR);
      const second = await request(t.app.getHttpServer())
        .post('/api/auth/sign-in')
        .set('Origin', t.config.publicOrigin)
        .set('User-Agent', 'Mozilla/5.0 (X11; Linux x86_64; rv:140.0) Gecko/20100101 Firefox/140.0')
        .send(EDITOR)
        .expect(200);
      const secondCookie = String(second.headers['set-cookie']).split(';')[0];
      const sessions = (await client(t, secondCookie).get('/api/auth/sessions').expect(200)).body as AuthSessionDto[];
      expect(sessions.length).toBeGreaterThanOrEqual(2);
      const current = found(
        sessions.find((s) => s.current),
        'the current session',
      );
      expect(current).toMatchObject({ device: 'Firefox 140 on Linux', address: expect.stringMatching(/127\.0\.0\.1/) });
      expect(sessions.filter((s) => s.current)).toHaveLength(1);
      expect(JSON.stringify(sessions)).not.toContain(secondCookie.split('=')[1]);
      // Ends the other one: its cookie stops at once; someone else's session is not theirs to end.
      const other = found(
        ((await client(t, first).get('/api/auth/sessions').expect(200)).body as AuthSessionDto[]).find(
          (s) => s.current,
        ),
        'first',
      );
      const ownerSessions = (await owner.get('/api/auth/sessions').expect(200)).body as AuthSessionDto[];
      await client(t, secondCookie).delete(`/api/auth/sessions/${ownerSessions[0].id}`).expect(404);
      await client(t, secondCookie).delete(`/api/auth/sessions/${other.id}`).expect(204);
      await t.http.get('/api/auth/session').set('Cookie', first).expect(401);
      await t.http.get('/api/auth/session').set('Cookie', secondCookie).expect(200);
      await owner.get('/api/auth/session').expect(200);
    });

    it('changes the password with the current one; the other sessions end, this one goes on', async () => {
      const credentials = { username: 'pat', password: 'first passphrase of pat' };
      await owner.post('/api/admin/v1/admins', { ...credentials, role: 'viewer' }).expect(201);
      const here = client(t, await t.signIn(credentials));
      const elsewhere = await t.signIn(credentials);
      const wrong = await here
        .put('/api/auth/password', { currentPassword: 'not it', newPassword: 'second passphrase of pat' })
        .expect(403);
      expect(wrong.body.message).toMatch(/current password is wrong/);
      const short = await here.put('/api/auth/password', {
        currentPassword: credentials.password,
        newPassword: 'short',
      });
      expect(short.status).toBe(400);
      expect(short.body.message).toEqual([expect.stringMatching(/^newPassword /)]);
      await here
        .put('/api/auth/password', { currentPassword: credentials.password, newPassword: 'second passphrase of pat' })
        .expect(204);
      await t.http.get('/api/auth/session').set('Cookie', elsewhere).expect(401);
      await here
        .get('/api/auth/session')
        .expect(200, { username: 'pat', role: 'viewer', publicUrlSet: true, passwordGenerated: false });
      await t.signIn({ username: 'pat', password: 'second passphrase of pat' });
      await t.http.post('/api/auth/sign-in').set('Origin', t.config.publicOrigin).send(credentials).expect(401);
      // A password change is a write: it needs the Origin, like every cookie write.
      await request(t.app.getHttpServer())
        .put('/api/auth/password')
        .set('Cookie', await t.signIn({ username: 'pat', password: 'second passphrase of pat' }))
        .send({ currentPassword: 'second passphrase of pat', newPassword: 'third passphrase of pat' })
        .expect(403);
    });

    it('says which ways in the sign-in page offers', async () => {
      await t.http.get('/api/auth/methods').expect(200, { password: true, sso: null });
      await t.http.get('/api/auth/oidc/login').expect(404);
    });
  });

  describe('API tokens', () => {
    it('shows a new token once (arb_…), stores only its digest, and lists it without the secret', async () => {
      const created = (await owner.post('/api/admin/v1/tokens', { name: 'backup script', role: 'viewer' }).expect(201))
        .body as CreatedTokenResponse;
      expect(created).toEqual({ id: expect.any(String), token: expect.stringMatching(/^arb_[A-Za-z0-9_-]{43}$/) });
      const list = (await owner.get('/api/admin/v1/tokens').expect(200)).body as ApiTokenDto[];
      expect(list.find((x) => x.id === created.id)).toMatchObject({
        name: 'backup script',
        role: 'viewer',
        createdBy: 'admin',
        expiresAt: null,
      });
      expect(JSON.stringify(list)).not.toContain(created.token);
      const rows: { digest: string }[] = await t.app
        .get(DataSource)
        .query('SELECT * FROM api_token WHERE id = $1', [created.id]);
      expect(JSON.stringify(rows)).not.toContain(created.token);
      expect(rows[0].digest).toMatch(/^[0-9a-f]{64}$/);
      await owner.post('/api/admin/v1/tokens', { name: 'backup script', role: 'viewer' }).expect(409);
      await owner.post('/api/admin/v1/tokens', { name: '', role: 'boss', expiresAt: 'tomorrow' }).expect(400);
      await owner
        .post('/api/admin/v1/tokens', { name: 'old', role: 'viewer', expiresAt: '2001-01-01T00:00:00Z' })
        .expect(400);
    });

    it('works as a bearer on the admin API without Origin; changes name the token as their author', async () => {
      const token = await createToken(owner, 'ci deploy', 'editor');
      const created = await bearer(token)
        .post('/api/admin/v1/apps', { name: 'From CI', slug: 'from-ci', templateId: null, active: false })
        .expect(201);
      const changes = (await owner.get(`/api/admin/v1/changes?objectId=${created.body.id as string}`).expect(200))
        .body as Page<ChangeDto>;
      expect(changes.items[0]).toMatchObject({ actor: 'token:ci deploy', action: 'app.created' });
    });

    it('lets a viewer token read but not write', async () => {
      const token = await createToken(owner, 'dashboard widget', 'viewer');
      await bearer(token).get('/api/admin/v1/apps').expect(200);
      await bearer(token)
        .post('/api/admin/v1/apps', { name: 'Nope', slug: 'nope-2', templateId: null, active: false })
        .expect(403);
      await bearer(token).get(`/api/admin/v1/proxies/${proxyId}/key`).expect(403);
    });

    it('caps a token at its creator’s role, now and later, and never lets a token make tokens or accounts', async () => {
      const editor = client(t, await t.signIn(EDITOR));
      await editor.post('/api/admin/v1/tokens', { name: 'too strong', role: 'owner' }).expect(403);
      const token = await createToken(editor, 'editor tool', 'editor');
      await bearer(token).post('/api/admin/v1/tokens', { name: 'child', role: 'viewer' }).expect(403);
      await bearer(token).get('/api/admin/v1/tokens').expect(403);
      const ownerToken = await createToken(owner, 'owner tool', 'owner');
      await bearer(ownerToken).post('/api/admin/v1/admins', { username: 'robot', role: 'owner' }).expect(403);
      // The editor is demoted: their editor token now acts as a viewer.
      const ed = found(
        ((await owner.get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[]).find(
          (a) => a.username === 'ed',
        ),
        'ed',
      );
      await owner.patch(`/api/admin/v1/admins/${ed.id}`, { role: 'viewer' }).expect(200);
      await bearer(token)
        .post('/api/admin/v1/apps', { name: 'Nope', slug: 'nope-3', templateId: null, active: false })
        .expect(403);
      await bearer(token).get('/api/admin/v1/apps').expect(200);
      await owner.patch(`/api/admin/v1/admins/${ed.id}`, { role: 'editor' }).expect(200);
    });

    it('stops a revoked token at once, and an expired one', async () => {
      const token = await createToken(owner, 'short lived', 'viewer');
      const { id } = found(
        ((await owner.get('/api/admin/v1/tokens').expect(200)).body as ApiTokenDto[]).find(
          (x) => x.name === 'short lived',
        ),
        'token',
      );
      await bearer(token).get('/api/admin/v1/apps').expect(200);
      await owner.delete(`/api/admin/v1/tokens/${id}`).expect(204);
      const refused = await bearer(token).get('/api/admin/v1/apps').expect(401);
      expect(refused.body.message).toMatch(/unknown, revoked or expired/);

      const expiring = await createToken(owner, 'expiring', 'viewer', new Date(Date.now() + 3_600_000).toISOString());
      await bearer(expiring).get('/api/admin/v1/apps').expect(200);
      t.clock.advance(3_600_001);
      await bearer(expiring).get('/api/admin/v1/apps').expect(401);
    });

    it('lets a viewer make viewer tokens of their own; an owner sees and revokes everyone’s', async () => {
      const viewer = client(t, await t.signIn(VIEWER));
      await viewer.post('/api/admin/v1/tokens', { name: 'mine', role: 'editor' }).expect(403);
      const token = await createToken(viewer, 'mine', 'viewer');
      const mine = (await viewer.get('/api/admin/v1/tokens').expect(200)).body as ApiTokenDto[];
      expect(mine.map((x) => x.name)).toEqual(['mine']);
      const all = (await owner.get('/api/admin/v1/tokens').expect(200)).body as ApiTokenDto[];
      const theirs = found(
        all.find((x) => x.name === 'mine'),
        'mine',
      );
      expect(theirs.createdBy).toBe('vera');
      const editor = client(t, await t.signIn(EDITOR));
      await editor.delete(`/api/admin/v1/tokens/${theirs.id}`).expect(404);
      await owner.delete(`/api/admin/v1/tokens/${theirs.id}`).expect(204);
      await bearer(token).get('/api/admin/v1/apps').expect(401);
    });

    it('never works on /proxy or on /api/auth', async () => {
      const token = await createToken(owner, 'nowhere else', 'owner');
      const proxied = await request(t.app.getHttpServer())
        .get('/proxy/homepage/api/v3/system/status')
        .set('Authorization', `Bearer ${token}`);
      expect(proxied.status).toBe(401);
      await request(t.app.getHttpServer()).get('/api/auth/session').set('Authorization', `Bearer ${token}`).expect(401);
      await request(t.app.getHttpServer())
        .put('/api/auth/password')
        .set('Authorization', `Bearer ${token}`)
        .send({ currentPassword: TEST_ADMIN.password, newPassword: 'something else entirely' })
        .expect(403);
    });

    it('throttles refused tokens per address with 429 and Retry-After', async () => {
      const base = await t.listen();
      const from = { localAddress: '127.0.0.3' };
      const statuses: number[] = [];
      for (let i = 0; i < BEARER_FAILURES_PER_ADDRESS + 1; i += 1) {
        const response = await rawRequest(
          base,
          'GET',
          '/api/admin/v1/apps',
          { authorization: `Bearer arb_${'x'.repeat(43)}` },
          undefined,
          from,
        );
        statuses.push(response.status);
      }
      expect(statuses.slice(0, BEARER_FAILURES_PER_ADDRESS).every((s) => s === 401)).toBe(true);
      const blocked = await rawRequest(
        base,
        'GET',
        '/api/admin/v1/apps',
        { authorization: 'Bearer arb_nothing' },
        undefined,
        from,
      );
      expect(blocked.status).toBe(429);
      expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0);
      // Another address is not held back.
      const token = await createToken(owner, 'elsewhere', 'viewer');
      expect((await rawRequest(base, 'GET', '/api/admin/v1/apps', { authorization: `Bearer ${token}` })).status).toBe(
        200,
      );
    });
  });
});

describe('trusted forward-auth', () => {
  let t: TestApp;
  let base: string;
  const header = (user: string, extra: Record<string, string> = {}) => ({ 'remote-user': user, ...extra });

  beforeAll(async () => {
    t = await startTestApp({
      TRUSTED_AUTH_HEADER: 'Remote-User',
      TRUSTED_AUTH_FROM: '127.0.0.1',
      TRUST_PROXY: 'true',
    });
    base = await t.listen();
    const owner = await t.admin();
    await owner.post('/api/admin/v1/admins', { username: 'fiona', role: 'editor' }).expect(201);
  });
  afterAll(() => t?.close());

  it('signs in the named account when the TCP peer is trusted', async () => {
    const response = await rawRequest(base, 'GET', '/api/auth/session', header('Fiona'), undefined, {
      localAddress: '127.0.0.1',
    });
    expect(response.status).toBe(200);
    expect(response.json()).toEqual({
      username: 'fiona',
      role: 'editor',
      publicUrlSet: true,
      passwordGenerated: false,
    });
  });

  it('ignores the header from an untrusted peer, even with X-Forwarded-For naming a trusted one', async () => {
    const untrusted = await rawRequest(base, 'GET', '/api/auth/session', header('fiona'), undefined, {
      localAddress: '127.0.0.2',
    });
    expect(untrusted.status).toBe(401);
    const forged = await rawRequest(
      base,
      'GET',
      '/api/auth/session',
      header('admin', { 'x-forwarded-for': '127.0.0.1' }),
      undefined,
      {
        localAddress: '127.0.0.2',
      },
    );
    expect(forged.status).toBe(401);
  });

  it('refuses an unknown user (no account is made without TRUSTED_AUTH_AUTO_CREATE)', async () => {
    const response = await rawRequest(base, 'GET', '/api/auth/session', header('mallory'), undefined, {
      localAddress: '127.0.0.1',
    });
    expect(response.status).toBe(401);
    expect(response.json<{ message: string }>().message).toMatch(/no account/);
    const owner = await t.admin();
    const accounts = (await owner.get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[];
    expect(accounts.map((a) => a.username)).not.toContain('mallory');
  });

  it('still checks the Origin of writes (the proxy’s cookie is an ambient credential)', async () => {
    const body = JSON.stringify({ name: 'FA', slug: 'fa', templateId: null, active: false });
    const json = { 'content-type': 'application/json' };
    const noOrigin = await rawRequest(base, 'POST', '/api/admin/v1/apps', header('fiona', json), body, {
      localAddress: '127.0.0.1',
    });
    expect(noOrigin.status).toBe(403);
    const withOrigin = await rawRequest(
      base,
      'POST',
      '/api/admin/v1/apps',
      header('fiona', { ...json, origin: t.config.publicOrigin }),
      body,
      {
        localAddress: '127.0.0.1',
      },
    );
    expect(withOrigin.status).toBe(201);
  });
});

describe('trusted forward-auth with auto-creation, and password sign-in off', () => {
  let t: TestApp;
  let base: string;

  beforeAll(async () => {
    t = await startTestApp({
      TRUSTED_AUTH_HEADER: 'X-Authentik-Username',
      TRUSTED_AUTH_FROM: 'loopback',
      TRUSTED_AUTH_AUTO_CREATE: 'true',
      PASSWORD_SIGN_IN: 'false',
      ADMIN_PASSWORD: '',
    });
    base = await t.listen();
  });
  afterAll(() => t?.close());

  it('creates an unknown user as a viewer at their first request', async () => {
    const response = await rawRequest(base, 'GET', '/api/auth/session', { 'x-authentik-username': 'newbie' });
    expect(response.json()).toEqual({
      username: 'newbie',
      role: 'viewer',
      publicUrlSet: true,
      passwordGenerated: false,
    });
    const again = await rawRequest(base, 'GET', '/api/auth/session', { 'x-authentik-username': 'newbie' });
    expect(again.json()).toEqual({ username: 'newbie', role: 'viewer', publicUrlSet: true, passwordGenerated: false });
    // The first owner (ADMIN_USERNAME, no password) comes in the same way.
    const first = await rawRequest(base, 'GET', '/api/auth/session', { 'x-authentik-username': 'admin' });
    expect(first.json()).toEqual({ username: 'admin', role: 'owner', publicUrlSet: true, passwordGenerated: false });
  });

  it('refuses password sign-in and says so to the sign-in page', async () => {
    await t.http.get('/api/auth/methods').expect(200, { password: false, sso: null });
    const refused = await t.http
      .post('/api/auth/sign-in')
      .set('Origin', t.config.publicOrigin)
      .send({ username: 'admin', password: 'whatever it is' })
      .expect(403);
    expect(refused.body.message).toMatch(/Password sign-in is off/);
  });
});
