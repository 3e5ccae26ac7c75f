import { request as httpRequest } from 'node:http';
import type { AdminAccountDto, ApiTokenDto, CreatedTokenResponse, ProxyDetailsDto } from '@arrbiter/contracts';
import { createTestDatabase, TestDatabase, seedProxy } from '@arrbiter/server/testing';
import { FakeServarr, freePort } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { OidcProvider, startOidcProvider } from '../support/oidc-provider';
import { ServerProcess, startServer } from '../support/server-process';
import { continueAtProvider, CookieJar, signInAtProvider, step } from '../support/sso-flow';

const OWNER = { ADMIN_USERNAME: 'olivia', ADMIN_PASSWORD: 'owner passphrase for e2e' };

/** A GET from a chosen loopback address (the TCP peer the server sees). */
function getFrom(
  url: string,
  localAddress: string,
  headers: Record<string, string>,
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { headers, localAddress, agent: false }, (res) => {
      let body = '';
      res.on('data', (chunk: Buffer) => (body += chunk.toString()));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('admin staff over HTTP against the production build', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let upstream: FakeServarr;
  let owner: AdminHttpClient;
  let proxy: ProxyDetailsDto;

  const call = (method: string, path: string, headers: Record<string, string>, body?: unknown) =>
    fetch(`${server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      body: body === undefined ? undefined : JSON.stringify(body),
    });

  beforeAll(async () => {
    database = await createTestDatabase();
    upstream = await FakeServarr.start({ type: 'radarr', instanceName: 'Movies' });
    server = await startServer({
      ...database.env,
      ...OWNER,
      OPENAPI_SOURCES: 'none',
      TRUSTED_AUTH_HEADER: 'Remote-User',
      TRUSTED_AUTH_FROM: '127.0.0.1',
    });
    owner = await AdminHttpClient.signIn(server, OWNER.ADMIN_USERNAME, OWNER.ADMIN_PASSWORD);
    ({ proxy } = await seedProxy(owner, {
      upstream,
      app: { name: 'Homepage', slug: 'homepage' },
    }));
    await owner.request('POST', '/api/admin/v1/admins', {
      username: 'vic',
      password: 'viewer passphrase e2e',
      role: 'viewer',
    });
  });
  afterAll(async () => {
    await server?.stop();
    await upstream?.stop();
    await database?.drop();
  });

  it('refuses a viewer’s write and the reveal of a proxy key (403), and gives the proxy without its key', async () => {
    const viewer = await AdminHttpClient.signIn(server, 'vic', 'viewer passphrase e2e');
    const origin = AdminHttpClient.origin(server);
    const write = await call(
      'POST',
      '/api/admin/v1/apps',
      { cookie: viewer.cookieHeader, origin },
      {
        name: 'Nope',
        slug: 'nope',
        templateId: null,
        active: true,
      },
    );
    expect(write.status).toBe(403);
    const reveal = await call('GET', `/api/admin/v1/proxies/${proxy.id}/key`, { cookie: viewer.cookieHeader });
    expect(reveal.status).toBe(403);
    const details = await viewer.request<ProxyDetailsDto>('GET', `/api/admin/v1/proxies/${proxy.id}`);
    expect(details.key).toBeUndefined();
    expect(details.proxyUrl).toContain('/proxy/homepage');
    expect((await owner.request<{ key: string }>('GET', `/api/admin/v1/proxies/${proxy.id}/key`)).key).toBe(proxy.key);
  });

  it('lets a viewer token read and not write; a revoked token stops at once', async () => {
    const { id, token } = await owner.request<CreatedTokenResponse>('POST', '/api/admin/v1/tokens', {
      name: 'homepage widget',
      role: 'viewer',
    });
    expect(token).toMatch(/^arb_/);
    const auth = { authorization: `Bearer ${token}` };
    expect((await call('GET', '/api/admin/v1/apps', auth)).status).toBe(200);
    const write = await call('POST', '/api/admin/v1/apps', auth, {
      name: 'X',
      slug: 'x',
      templateId: null,
      active: true,
    });
    expect(write.status).toBe(403);
    // Never a proxy credential.
    expect((await call('GET', '/proxy/homepage/api/v3/movie', auth)).status).toBe(401);
    const listed = await owner.request<ApiTokenDto[]>('GET', '/api/admin/v1/tokens');
    expect(JSON.stringify(listed)).not.toContain(token);
    await owner.request('DELETE', `/api/admin/v1/tokens/${id}`);
    expect((await call('GET', '/api/admin/v1/apps', auth)).status).toBe(401);
  });

  it('lets an editor token write without an Origin, named as the author', async () => {
    const { token } = await owner.request<CreatedTokenResponse>('POST', '/api/admin/v1/tokens', {
      name: 'deploy',
      role: 'editor',
    });
    const created = await call(
      'POST',
      '/api/admin/v1/apps',
      { authorization: `Bearer ${token}` },
      {
        name: 'Scripted',
        slug: 'scripted',
        templateId: null,
        active: false,
      },
    );
    expect(created.status).toBe(201);
    const changes = await owner.request<{ items: { actor: string; action: string }[] }>(
      'GET',
      '/api/admin/v1/changes?actor=token:deploy',
    );
    expect(changes.items).toEqual([expect.objectContaining({ actor: 'token:deploy', action: 'app.created' })]);
  });

  it('never removes or demotes the last owner (409)', async () => {
    const accounts = await owner.request<AdminAccountDto[]>('GET', '/api/admin/v1/admins');
    const me = accounts.find((a) => a.username === 'olivia');
    expect(me?.role).toBe('owner');
    const origin = AdminHttpClient.origin(server);
    const remove = await call('DELETE', `/api/admin/v1/admins/${me?.id}`, { cookie: owner.cookieHeader, origin });
    expect(remove.status).toBe(409);
    const demote = await call(
      'PATCH',
      `/api/admin/v1/admins/${me?.id}`,
      { cookie: owner.cookieHeader, origin },
      { role: 'editor' },
    );
    expect(demote.status).toBe(409);
    // A second owner may go, and then the first is the last again.
    const second = await owner.request<AdminAccountDto>('POST', '/api/admin/v1/admins', {
      username: 'otto',
      role: 'owner',
    });
    await owner.request('DELETE', `/api/admin/v1/admins/${second.id}`);
  });

  it('honours the forward-auth header from the trusted address and ignores it from any other', async () => {
    const session = `${server.url}/api/auth/session`;
    const trusted = await getFrom(session, '127.0.0.1', { 'remote-user': 'vic' });
    expect(trusted.status).toBe(200);
    expect(JSON.parse(trusted.body)).toEqual({
      username: 'vic',
      role: 'viewer',
      publicUrlSet: true,
      passwordGenerated: false,
    });
    const untrusted = await getFrom(session, '127.0.0.2', { 'remote-user': 'olivia' });
    expect(untrusted.status).toBe(401);
    const forged = await getFrom(session, '127.0.0.2', { 'remote-user': 'olivia', 'x-forwarded-for': '127.0.0.1' });
    expect(forged.status).toBe(401);
    const unknown = await getFrom(session, '127.0.0.1', { 'remote-user': 'stranger' });
    expect(unknown.status).toBe(401);
  });
});

describe('single sign-on against a real OpenID provider (oidc-provider)', () => {
  let database: TestDatabase;
  let provider: OidcProvider;
  let server: ServerProcess;
  let owner: AdminHttpClient;

  /** Starts Arrbiter on a known port (its callback is registered at the provider first). */
  async function start(env: NodeJS.ProcessEnv, accounts: Record<string, Record<string, unknown>>, path = '') {
    const port = await freePort();
    const publicUrl = `http://127.0.0.1:${port}${path}`;
    provider = await startOidcProvider(`${publicUrl}/api/auth/oidc/callback`, accounts);
    server = await startServer({
      ...database.env,
      ...OWNER,
      PORT: String(port),
      PUBLIC_URL: publicUrl,
      // The admin client's writes come from http://localhost:PORT.
      ALLOWED_ORIGINS: `http://localhost:${port}`,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: provider.clientId,
      OIDC_CLIENT_SECRET: provider.clientSecret,
      OIDC_ROLE_MAP: 'arr-owners=owner,arr-staff=editor,family=viewer',
      ...env,
    });
    owner = await AdminHttpClient.signIn(server, OWNER.ADMIN_USERNAME, OWNER.ADMIN_PASSWORD);
  }

  async function stop() {
    await server?.stop();
    await provider?.stop();
    await database?.drop();
  }

  /** Arrbiter's answer to the callback, and the session it started (if any). */
  async function finish(flow: Awaited<ReturnType<typeof signInAtProvider>>, url = flow.callbackUrl.href) {
    const response = await step(flow.jar, url);
    const session = response.headers.getSetCookie().find((c) => c.startsWith('arrbiter_session='));
    return { status: response.status, location: response.headers.get('location'), session: session?.split(';')[0] };
  }

  const whoIs = async (cookie: string) =>
    (await fetch(`${server.url}/api/auth/session`, { headers: { cookie } })).json() as Promise<unknown>;

  describe('without auto-creation', () => {
    beforeAll(async () => {
      database = await createTestDatabase();
      await start(
        {},
        {
          alice: { groups: ['family', 'arr-staff'] },
          bob: { groups: ['arr-staff'] },
          carol: { groups: [] },
          // Someone at the provider who calls themselves the owner, and the owner's own identity there.
          mallory: { preferred_username: 'olivia', groups: ['family'] },
          'olivia-at-idp': { groups: ['family'] },
        },
      );
      await owner.request('POST', '/api/admin/v1/admins', { username: 'alice', role: 'viewer' });
      await owner.request('POST', '/api/admin/v1/admins', { username: 'carol', role: 'editor' });
    });
    afterAll(stop);

    it('offers the provider on the sign-in page', async () => {
      const methods = await (await fetch(`${server.url}/api/auth/methods`)).json();
      expect(methods).toEqual({
        password: true,
        sso: { label: expect.stringMatching(/^Sign in with 127\.0\.0\.1:\d+$/) },
      });
    });

    it('signs an existing account in with a session cookie, its role taken from the claim (PKCE, state, nonce)', async () => {
      const flow = await signInAtProvider(server.url, 'alice');
      const request = flow.authorizationUrl.searchParams;
      expect(request.get('response_type')).toBe('code');
      expect(request.get('code_challenge_method')).toBe('S256');
      expect(request.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
      expect(request.get('state')).toBeTruthy();
      expect(request.get('nonce')).toBeTruthy();
      expect(request.get('scope')).toBe('openid profile email groups');
      expect(flow.callbackUrl.searchParams.get('state')).toBe(request.get('state'));

      const done = await finish(flow);
      expect(done).toMatchObject({ status: 302, location: '/' });
      expect(done.session).toMatch(/^arrbiter_session=[A-Za-z0-9_-]{43}$/);
      // The highest mapped group wins: family (viewer) and arr-staff (editor) make an editor.
      expect(await whoIs(done.session as string)).toEqual({
        username: 'alice',
        role: 'editor',
        publicUrlSet: true,
        passwordGenerated: false,
      });
      const accounts = await owner.request<AdminAccountDto[]>('GET', '/api/admin/v1/admins');
      expect(accounts.find((a) => a.username === 'alice')).toMatchObject({ role: 'editor', sso: true });
    });

    it('refuses a callback whose state was changed', async () => {
      const flow = await signInAtProvider(server.url, 'alice');
      const tampered = new URL(flow.callbackUrl);
      tampered.searchParams.set('state', 'forged-state-value');
      const done = await finish(flow, tampered.href);
      expect(done).toEqual({ status: 302, location: '/sign-in?sso=failed', session: undefined });
    });

    it('refuses a replayed code, even with the state cookie it came with', async () => {
      const flow = await signInAtProvider(server.url, 'alice');
      const first = await finish(flow);
      expect(first.session).toBeDefined();
      // The callback cleared the state cookie; an attacker replays both the URL and the old cookie.
      flow.jar.set(server.url, 'arrbiter_oidc', flow.stateCookie as string);
      const again = await finish(flow);
      expect(again).toEqual({ status: 302, location: '/sign-in?sso=failed', session: undefined });
    });

    it('refuses an unknown user when auto-creation is off, and creates no account', async () => {
      const done = await finish(await signInAtProvider(server.url, 'bob'));
      expect(done).toEqual({ status: 302, location: '/sign-in?sso=no-account', session: undefined });
      const accounts = await owner.request<AdminAccountDto[]>('GET', '/api/admin/v1/admins');
      expect(accounts.map((a) => a.username)).not.toContain('bob');
    });

    it('refuses an account whose claim maps to no role (no OIDC_DEFAULT_ROLE)', async () => {
      const done = await finish(await signInAtProvider(server.url, 'carol'));
      expect(done).toEqual({ status: 302, location: '/sign-in?sso=no-role', session: undefined });
    });

    it('never links an identity to the password-holding owner by its name, nor demotes them', async () => {
      const done = await finish(await signInAtProvider(server.url, 'mallory'));
      expect(done).toEqual({ status: 302, location: '/sign-in?sso=link-required', session: undefined });
      const accounts = await owner.request<AdminAccountDto[]>('GET', '/api/admin/v1/admins');
      expect(accounts.find((a) => a.username === 'olivia')).toMatchObject({ role: 'owner', sso: false });
    });

    it('lets the owner link their own account (password again), refuses a demoting sign-in, and unlinks', async () => {
      const link = (password: string) =>
        fetch(`${server.url}/api/auth/oidc/link`, {
          method: 'POST',
          headers: {
            cookie: owner.cookieHeader,
            origin: AdminHttpClient.origin(server),
            'content-type': 'application/json',
          },
          body: JSON.stringify({ password }),
        });
      expect((await link('not the password')).status).toBe(403);
      const started = await link(OWNER.ADMIN_PASSWORD);
      expect(started.status).toBe(200);
      const { redirectTo } = (await started.json()) as { redirectTo: string };
      const jar = new CookieJar();
      jar.store(server.url, started);
      const flow = await continueAtProvider(jar, server.url, new URL(redirectTo), 'olivia-at-idp');
      const linked = await finish(flow);
      expect(linked).toEqual({ status: 302, location: '/account?sso=linked', session: undefined });
      const accounts = await owner.request<AdminAccountDto[]>('GET', '/api/admin/v1/admins');
      const olivia = accounts.find((a) => a.username === 'olivia');
      expect(olivia).toMatchObject({ role: 'owner', sso: true });

      // The identity is olivia's now; its claim (family: viewer) would demote the last owner: refused.
      const demoting = await finish(await signInAtProvider(server.url, 'olivia-at-idp'));
      expect(demoting).toEqual({ status: 302, location: '/sign-in?sso=last-owner', session: undefined });
      expect(
        (await owner.request<AdminAccountDto[]>('GET', '/api/admin/v1/admins')).find((a) => a.id === olivia?.id),
      ).toMatchObject({ role: 'owner', sso: true });

      await owner.request('DELETE', `/api/admin/v1/admins/${olivia?.id}/sso`);
      const after = await owner.request<AdminAccountDto[]>('GET', '/api/admin/v1/admins');
      expect(after.find((a) => a.id === olivia?.id)).toMatchObject({ role: 'owner', sso: false });
      const unlinked = await finish(await signInAtProvider(server.url, 'olivia-at-idp'));
      expect(unlinked.location).toBe('/sign-in?sso=no-account');
    });

    it('never logs a token, code or the client secret', async () => {
      const output = server.output();
      expect(output).not.toContain(provider.clientSecret);
      expect(output).not.toMatch(/code=[A-Za-z0-9_-]{20,}/);
    });
  });

  describe('with auto-creation', () => {
    beforeAll(async () => {
      database = await createTestDatabase();
      await start({ OIDC_AUTO_CREATE: 'true' }, { dora: { groups: 'arr-owners' }, eve: { groups: ['strangers'] } });
    });
    afterAll(stop);

    it('creates an unknown user with the role of their claim', async () => {
      const done = await finish(await signInAtProvider(server.url, 'dora'));
      expect(done.location).toBe('/');
      expect(await whoIs(done.session as string)).toEqual({
        username: 'dora',
        role: 'owner',
        publicUrlSet: true,
        passwordGenerated: false,
      });
      const unmapped = await finish(await signInAtProvider(server.url, 'eve'));
      expect(unmapped.location).toBe('/sign-in?sso=no-role');
    });
  });

  describe('under a sub-path (PUBLIC_URL=http://127.0.0.1:PORT/arrbiter)', () => {
    beforeAll(async () => {
      database = await createTestDatabase();
      await start({ OIDC_AUTO_CREATE: 'true' }, { fay: { groups: 'family' } }, '/arrbiter');
    });
    afterAll(stop);

    it('redirects to the callback, sets its cookies and lands on the dashboard, all under the prefix', async () => {
      const flow = await signInAtProvider(`${server.url}/arrbiter`, 'fay');
      expect(flow.authorizationUrl.searchParams.get('redirect_uri')).toBe(
        `${server.url}/arrbiter/api/auth/oidc/callback`,
      );
      expect(flow.callbackUrl.pathname).toBe('/arrbiter/api/auth/oidc/callback');
      const response = await step(flow.jar, flow.callbackUrl.href);
      expect(response.status).toBe(302);
      expect(response.headers.get('location')).toBe('/arrbiter/');
      const session = response.headers.getSetCookie().find((c) => c.startsWith('arrbiter_session='));
      expect(session).toMatch(/; Path=\/arrbiter(;|$)/);
      const cookie = (session as string).split(';')[0];
      const who = await fetch(`${server.url}/arrbiter/api/auth/session`, { headers: { cookie } });
      expect(await who.json()).toEqual({
        username: 'fay',
        role: 'viewer',
        publicUrlSet: true,
        passwordGenerated: false,
      });
    });
  });
});
