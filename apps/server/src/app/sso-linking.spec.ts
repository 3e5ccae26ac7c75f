import type { AdminAccountDto } from '@arrbiter/contracts';
import { AccountsService, SsoIdentity, SsoRefusal } from '@arrbiter/server/auth';
import { DataSource } from 'typeorm';
import { found, startTestApp, TestApp } from '../testing/test-app';

const ISSUER = 'https://id.example.com';
const OTHER_ISSUER = 'https://other-id.example.com';

/** The refusal's reason, or 'signed in' when the identity got in. */
async function outcome(t: TestApp, identity: SsoIdentity): Promise<string> {
  try {
    const user = await t.app.get(AccountsService).signInWithSso(identity);
    return `signed in as ${user.username} (${user.role})`;
  } catch (error) {
    if (error instanceof SsoRefusal) return `refused: ${error.reason}`;
    throw error;
  }
}

/**
 * Which account an OpenID identity signs in to: bound on (issuer, subject), never linked by name to an
 * account with a password or to an owner, and never left owner when its claim maps lower.
 */
describe('single sign-on account linking', () => {
  let t: TestApp;

  const accounts = async () =>
    ((await (await t.admin()).get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[]).map(
      (a) => `${a.username} ${a.role}${a.hasPassword ? ' password' : ''}${a.sso ? ' sso' : ''}`,
    );
  const row = async (username: string) => {
    const [found]: { oidcIssuer: string | null; oidcSubject: string | null }[] = await t.app
      .get(DataSource)
      .query('SELECT oidc_issuer AS "oidcIssuer", oidc_subject AS "oidcSubject" FROM admin_user WHERE username = $1', [
        username,
      ]);
    return found;
  };

  beforeAll(async () => {
    t = await startTestApp({
      OPENAPI_SOURCES: 'none',
      PUBLIC_URL: 'http://localhost:3000',
      // Never reached: these tests call the accounts service with what a verified ID token said.
      OIDC_ISSUER: 'http://127.0.0.1:9',
      OIDC_CLIENT_ID: 'arrbiter',
      OIDC_ROLE_MAP: 'arr-owners=owner,arr-staff=editor,family=viewer',
    });
    const owner = await t.admin();
    await owner.post('/api/admin/v1/admins', { username: 'ed', password: 'editor passphrase 1', role: 'editor' });
    await owner.post('/api/admin/v1/admins', { username: 'pia', role: 'viewer' }).expect(201);
  });
  afterAll(() => t?.close());

  it('refuses an identity named like the password-holding owner: not linked, the owner stays owner', async () => {
    const identity = { issuer: ISSUER, subject: 'mallory', username: 'admin', roleValues: ['family'] };
    expect(await outcome(t, identity)).toBe('refused: link-required');
    expect(await accounts()).toContain('admin owner password');
    expect((await row('admin'))?.oidcSubject).toBeNull();
  });

  it('refuses an identity named like an account with a password, whatever its role', async () => {
    const identity = { issuer: ISSUER, subject: 'mallory', username: 'ed', roleValues: ['arr-owners'] };
    expect(await outcome(t, identity)).toBe('refused: link-required');
    expect(await accounts()).toContain('ed editor password');
  });

  it('links a passwordless non-owner account an owner made for it, bound to the issuer and subject', async () => {
    const identity = { issuer: ISSUER, subject: 'pia-at-provider', username: 'pia', roleValues: ['family'] };
    expect(await outcome(t, identity)).toBe('signed in as pia (viewer)');
    expect(await row('pia')).toMatchObject({ oidcIssuer: ISSUER, oidcSubject: 'pia-at-provider' });
    // Bound by (issuer, subject) now: the name the provider sends no longer matters.
    expect(await outcome(t, { ...identity, username: 'someone-else' })).toBe('signed in as pia (viewer)');
  });

  it('takes the same subject from another issuer for another identity', async () => {
    const identity = { issuer: OTHER_ISSUER, subject: 'pia-at-provider', username: 'pia', roleValues: ['family'] };
    expect(await outcome(t, identity)).toBe('refused: conflict');
    expect(await outcome(t, { ...identity, username: 'nobody' })).toBe('refused: no-account');
  });

  it('refuses a sign-in whose claim would demote the last owner, and keeps them owner', async () => {
    // The owner linked their identity themselves earlier (an explicit link binds it the same way).
    await t.app
      .get(DataSource)
      .query(`UPDATE admin_user SET oidc_issuer = $1, oidc_subject = 'admin-at-provider' WHERE username = 'admin'`, [
        ISSUER,
      ]);
    const identity = { issuer: ISSUER, subject: 'admin-at-provider', username: 'admin', roleValues: ['family'] };
    expect(await outcome(t, identity)).toBe('refused: last-owner');
    expect(await accounts()).toContain('admin owner password sso');
    expect(await outcome(t, { ...identity, roleValues: ['arr-owners'] })).toBe('signed in as admin (owner)');
  });

  it('binds accounts linked before issuers were kept to the discovered provider, and no other', async () => {
    const owner = await t.admin();
    await owner.post('/api/admin/v1/admins', { username: 'old-timer', role: 'editor' }).expect(201);
    const data = t.app.get(DataSource);
    await data.query(`UPDATE admin_user SET oidc_subject = 'old-sub' WHERE username = 'old-timer'`);
    const identity = { issuer: ISSUER, subject: 'old-sub', username: 'old-timer', roleValues: ['arr-staff'] };
    // Unbound, it matches no identity (and the name does not link an account that is already linked).
    expect(await outcome(t, identity)).toBe('refused: conflict');
    await t.app.get(AccountsService).bindLegacyIdentities(ISSUER);
    expect(await row('old-timer')).toMatchObject({ oidcIssuer: ISSUER, oidcSubject: 'old-sub' });
    expect(await outcome(t, identity)).toBe('signed in as old-timer (editor)');
    expect(await outcome(t, { ...identity, issuer: OTHER_ISSUER })).toBe('refused: conflict');
  });

  it('lets an owner unlink an account (audited), and no one else', async () => {
    const owner = await t.admin();
    const list = (await owner.get('/api/admin/v1/admins').expect(200)).body as AdminAccountDto[];
    const pia = found(
      list.find((a) => a.username === 'pia'),
      'pia',
    );
    const editor = await t.signIn({ username: 'ed', password: 'editor passphrase 1' });
    await t.http
      .delete(`/api/admin/v1/admins/${pia.id}/sso`)
      .set('Cookie', editor)
      .set('Origin', t.config.publicOrigin)
      .expect(403);
    await owner.delete(`/api/admin/v1/admins/${pia.id}/sso`).expect(204);
    expect(await accounts()).toContain('pia viewer');
    expect(await row('pia')).toMatchObject({ oidcIssuer: null, oidcSubject: null });
    const changes = (await owner.get('/api/admin/v1/changes?objectType=account').expect(200)).body as {
      items: { action: string; objectName: string }[];
    };
    expect(changes.items).toEqual(
      expect.arrayContaining([expect.objectContaining({ action: 'account.sso-unlinked', objectName: 'pia' })]),
    );
  });
});
