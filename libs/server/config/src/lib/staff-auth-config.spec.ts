import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ConfigError } from './config-error';
import { loadConfig } from './load-config';

describe('staff sign-in configuration (PASSWORD_SIGN_IN, OIDC_*, TRUSTED_AUTH_*)', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'arrbiter-staff-config-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  // Single sign-on needs PUBLIC_URL (its redirect URI).
  const load = (env: NodeJS.ProcessEnv) => loadConfig({ DATA_DIR: dir, PUBLIC_URL: 'https://arr.example', ...env });
  function problemsOf(env: NodeJS.ProcessEnv): readonly string[] {
    try {
      load(env);
    } catch (error) {
      if (error instanceof ConfigError) return error.problems;
      throw error;
    }
    throw new Error('expected a ConfigError');
  }

  it('defaults to password sign-in only', () => {
    expect(load({})).toMatchObject({ passwordSignIn: true, oidc: undefined, trustedAuth: undefined });
  });

  it('reads single sign-on with its role map, defaults and secret file', () => {
    const secretFile = join(dir, 'oidc-secret');
    writeFileSync(secretFile, 's3cret-from-file\n');
    const config = load({
      OIDC_ISSUER: 'https://auth.example.com/application/o/arrbiter/',
      OIDC_CLIENT_ID: 'arrbiter',
      OIDC_CLIENT_SECRET_FILE: secretFile,
      OIDC_ROLE_MAP: 'arr-owners=owner, arr-staff=editor,family=viewer',
      OIDC_DEFAULT_ROLE: 'viewer',
      OIDC_AUTO_CREATE: 'true',
    });
    expect(config.oidc).toEqual({
      issuer: 'https://auth.example.com/application/o/arrbiter/',
      clientId: 'arrbiter',
      clientSecret: 's3cret-from-file',
      scopes: ['openid', 'profile', 'email', 'groups'],
      roleClaim: 'groups',
      roleMap: [
        { value: 'arr-owners', role: 'owner' },
        { value: 'arr-staff', role: 'editor' },
        { value: 'family', role: 'viewer' },
      ],
      defaultRole: 'viewer',
      autoCreate: true,
      label: 'Sign in with auth.example.com',
    });
    expect(
      load({ OIDC_ISSUER: 'http://127.0.0.1:9000', OIDC_CLIENT_ID: 'c', OIDC_SCOPES: 'openid email' }).oidc,
    ).toMatchObject({
      scopes: ['openid', 'email'],
      clientSecret: undefined,
      autoCreate: false,
    });
  });

  it('refuses bad single sign-on settings, naming each variable', () => {
    expect(
      problemsOf({
        OIDC_ISSUER: 'http://auth.example.com',
        OIDC_CLIENT_SECRET: 'a',
        OIDC_CLIENT_SECRET_FILE: '/nope',
        OIDC_SCOPES: 'profile',
        OIDC_ROLE_MAP: 'admins=root,=owner',
        OIDC_DEFAULT_ROLE: 'owner',
        OIDC_AUTO_CREATE: 'maybe',
      }),
    ).toEqual([
      expect.stringMatching(/^OIDC_ISSUER must be https:\/\//),
      'OIDC_CLIENT_ID is required with OIDC_ISSUER',
      'OIDC_CLIENT_SECRET and OIDC_CLIENT_SECRET_FILE are both set: set only one',
      expect.stringMatching(/^OIDC_SCOPES must include openid/),
      expect.stringMatching(/^OIDC_ROLE_MAP: "admins=root"/),
      expect.stringMatching(/^OIDC_ROLE_MAP: "=owner"/),
      expect.stringMatching(/^OIDC_DEFAULT_ROLE must be viewer or editor/),
      expect.stringMatching(/^OIDC_AUTO_CREATE must be true or false/),
    ]);
    expect(problemsOf({ OIDC_CLIENT_ID: 'x', OIDC_ROLE_MAP: 'a=owner' })).toEqual([
      'OIDC_CLIENT_ID, OIDC_ROLE_MAP are set without OIDC_ISSUER',
    ]);
    expect(problemsOf({ OIDC_ISSUER: 'https://a.example', OIDC_CLIENT_ID: 'c', OIDC_AUTO_CREATE: 'true' })).toEqual([
      expect.stringMatching(/^OIDC_AUTO_CREATE=true needs OIDC_ROLE_MAP or OIDC_DEFAULT_ROLE/),
    ]);
  });

  it('reads trusted forward-auth, lower-casing the header', () => {
    expect(
      load({ TRUSTED_AUTH_HEADER: 'Remote-User', TRUSTED_AUTH_FROM: '10.0.0.5, 172.18.0.0/16,loopback' }).trustedAuth,
    ).toEqual({ header: 'remote-user', from: ['10.0.0.5', '172.18.0.0/16', 'loopback'], autoCreate: false });
  });

  it('requires TRUSTED_AUTH_FROM with the header, and refuses every-address values and reserved headers', () => {
    expect(problemsOf({ TRUSTED_AUTH_HEADER: 'Remote-User' })).toEqual([
      expect.stringMatching(/^TRUSTED_AUTH_FROM is required/),
    ]);
    for (const all of ['0.0.0.0/0', '::/0', '::ffff:0.0.0.0/96']) {
      expect(problemsOf({ TRUSTED_AUTH_HEADER: 'Remote-User', TRUSTED_AUTH_FROM: all })).toEqual([
        `TRUSTED_AUTH_FROM: ${all} covers every address; name the forward-auth proxy's own address or network`,
      ]);
    }
    expect(problemsOf({ TRUSTED_AUTH_HEADER: 'Remote-User', TRUSTED_AUTH_FROM: 'proxy.lan' })).toEqual([
      expect.stringMatching(/^TRUSTED_AUTH_FROM: "proxy.lan" is not an address/),
    ]);
    expect(problemsOf({ TRUSTED_AUTH_HEADER: 'Authorization', TRUSTED_AUTH_FROM: 'loopback' })).toEqual([
      expect.stringMatching(/^TRUSTED_AUTH_HEADER cannot be Authorization/),
    ]);
    expect(problemsOf({ TRUSTED_AUTH_FROM: 'loopback' })).toEqual([
      'TRUSTED_AUTH_FROM is set without TRUSTED_AUTH_HEADER',
    ]);
  });

  it('turns password sign-in off only with another way in, and then takes ADMIN_USERNAME alone', () => {
    expect(problemsOf({ PASSWORD_SIGN_IN: 'false' })).toEqual([expect.stringMatching(/^PASSWORD_SIGN_IN=false needs/)]);
    const config = load({
      PASSWORD_SIGN_IN: 'false',
      TRUSTED_AUTH_HEADER: 'Remote-User',
      TRUSTED_AUTH_FROM: 'loopback',
      ADMIN_USERNAME: 'alice',
    });
    expect(config).toMatchObject({ passwordSignIn: false, adminUsername: 'alice', adminPassword: undefined });
    expect(
      problemsOf({
        PASSWORD_SIGN_IN: 'false',
        TRUSTED_AUTH_HEADER: 'Remote-User',
        TRUSTED_AUTH_FROM: 'loopback',
        ADMIN_USERNAME: 'alice',
        ADMIN_PASSWORD: 'a long enough password',
      }),
    ).toEqual(['ADMIN_PASSWORD is set but PASSWORD_SIGN_IN=false']);
  });
});
