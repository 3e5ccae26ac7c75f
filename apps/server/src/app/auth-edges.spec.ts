import type { CreatedTokenResponse } from '@arrbiter/contracts';
import { AccountsService, SsoRefusal } from '@arrbiter/server/auth';
import { loadConfig } from '@arrbiter/server/config';
import { startTestApp, TestApp } from '../testing/test-app';

/**
 * Small edges of who a request is: the bearer check does not depend on the path's case, and `system`
 * (the actor of CONFIG_FILE, the schedules and the CLI) is no one's username, however one would come.
 */
describe('authentication edges', () => {
  let t: TestApp;
  let token: string;

  beforeAll(async () => {
    t = await startTestApp({
      OPENAPI_SOURCES: 'none',
      PUBLIC_URL: 'http://localhost:3000',
      // Never reached: the SSO case calls the accounts service with what an ID token said.
      OIDC_ISSUER: 'http://127.0.0.1:9',
      OIDC_CLIENT_ID: 'arrbiter',
      OIDC_ROLE_MAP: 'arr-owners=owner,family=viewer',
      OIDC_AUTO_CREATE: 'true',
      TRUSTED_AUTH_HEADER: 'Remote-User',
      TRUSTED_AUTH_FROM: 'loopback',
      TRUSTED_AUTH_AUTO_CREATE: 'true',
    });
    const owner = await t.admin();
    token = (
      (await owner.post('/api/admin/v1/tokens', { name: 'case', role: 'viewer' }).expect(201))
        .body as CreatedTokenResponse
    ).token;
  });
  afterAll(() => t?.close());

  describe('the bearer check, whatever the case of the path', () => {
    it('takes an API token on /API/Admin/V1 as on /api/admin/v1', async () => {
      const lower = await t.http.get('/api/admin/v1/services').set('Authorization', `Bearer ${token}`).expect(200);
      const upper = await t.http.get('/API/Admin/V1/services').set('Authorization', `Bearer ${token}`).expect(200);
      expect(upper.body).toEqual(lower.body);
      // Still the token's role (viewer), not someone else's.
      await t.http
        .post('/API/ADMIN/V1/apps')
        .set('Authorization', `Bearer ${token}`)
        .send({ name: 'x', slug: 'x', templateId: null, active: true })
        .expect(403);
    });

    it('never falls back to the cookie when a bearer header is refused, whatever the case', async () => {
      const cookie = await t.signIn();
      for (const path of ['/api/admin/v1/services', '/API/admin/v1/services', '/api/ADMIN/v1/services']) {
        const response = await t.http.get(path).set('Cookie', cookie).set('Authorization', 'Bearer arb_not-a-token');
        expect([path, response.status]).toEqual([path, 401]);
      }
    });
  });

  describe('the reserved username "system"', () => {
    it('cannot be created through the admin API (400, in any case)', async () => {
      const owner = await t.admin();
      for (const username of ['system', 'SYSTEM', 'System']) {
        const response = await owner.post('/api/admin/v1/admins', { username, role: 'viewer' }).expect(400);
        expect(response.body.message).toEqual([expect.stringMatching(/"system" is reserved/)]);
      }
    });

    it('cannot be ADMIN_USERNAME', () => {
      expect(() =>
        loadConfig({ ...t.database.env, ADMIN_USERNAME: 'System', ADMIN_PASSWORD: 'a long passphrase' }),
      ).toThrow(/ADMIN_USERNAME cannot be "system"/);
    });

    it('is refused to single sign-on (no account is made)', async () => {
      const identity = { issuer: 'https://id.example.com', subject: 's', username: 'system', roleValues: ['family'] };
      const refusal = await t.app
        .get(AccountsService)
        .signInWithSso(identity)
        .then(
          () => undefined,
          (error: unknown) => error,
        );
      expect(refusal).toBeInstanceOf(SsoRefusal);
      expect(refusal).toMatchObject({ reason: 'invalid-username', message: expect.stringMatching(/reserved/) });
    });

    it('is refused to forward-auth (401, no account is made)', async () => {
      const response = await t.http.get('/api/auth/session').set('Remote-User', 'System').expect(401);
      expect(response.body.message).toMatch(/"system" is reserved/);
      await t.http
        .get('/api/auth/session')
        .set('Remote-User', 'fiona')
        .expect(200, { username: 'fiona', role: 'viewer', publicUrlSet: true, passwordGenerated: false });
      const owner = await t.admin();
      const accounts = (await owner.get('/api/admin/v1/admins').expect(200)).body as { username: string }[];
      expect(accounts.map((a) => a.username)).not.toContain('system');
    });
  });
});
