import { ExecutionContext, ForbiddenException, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { ApiTokensService } from '../api-tokens.service';
import type { ForwardAuth } from '../forward-auth';
import { SESSION_COOKIE } from '../session-cookie';
import type { SessionsService } from '../sessions.service';
import { AuthenticationGuard } from './authentication.guard';
import { AdminPrincipal, SIGN_IN_OPTIONAL } from '@arrbiter/server/access';

const BY_COOKIE: AdminPrincipal = { id: 'a', username: 'admin', role: 'owner', credential: 'session', actor: 'admin' };
const BY_TOKEN: AdminPrincipal = { id: 'a', username: 'admin', role: 'viewer', credential: 'token', actor: 'token:ci' };
const GENERATED_EDITOR = {
  ...BY_COOKIE,
  id: 'e',
  username: 'ed',
  role: 'editor',
  actor: 'ed',
  passwordGenerated: true,
};
const GENERATED_OWNER = { ...BY_COOKIE, passwordGenerated: true };
const BY_PROXY: AdminPrincipal = { id: 'b', username: 'bob', role: 'editor', credential: 'forward-auth', actor: 'bob' };

interface FakeRequest {
  path: string;
  headers: Record<string, string>;
  cookies: Record<string, string>;
  socket: { remoteAddress: string };
  admin?: AdminPrincipal;
}

function request(path: string, headers: Record<string, string> = {}, cookie?: string): FakeRequest {
  return { path, headers, cookies: cookie ? { [SESSION_COOKIE]: cookie } : {}, socket: { remoteAddress: '127.0.0.1' } };
}

function contextFor(req: object, type = 'http', access: boolean | 'optional' = false): ExecutionContext {
  const handler = () => undefined;
  return {
    getType: () => type,
    switchToHttp: () => ({ getRequest: () => req }),
    getHandler: () => handler,
    getClass: () => (access === 'optional' ? OptionalController : access ? PublicController : PrivateController),
  } as unknown as ExecutionContext;
}
class PrivateController {}
class PublicController {}
/** `@SignInOptional()`: public, and who calls when anyone does. */
class OptionalController {}

describe(AuthenticationGuard.name, () => {
  const reflector = {
    getAllAndOverride: (key: string, [, type]: unknown[]) =>
      key === SIGN_IN_OPTIONAL ? type === OptionalController : type === PublicController || type === OptionalController,
  } as unknown as Reflector;
  const sessions = {
    resolve: async (token: string) =>
      ({ good: BY_COOKIE, 'generated-editor': GENERATED_EDITOR, 'generated-owner': GENERATED_OWNER })[token] ?? null,
  } as unknown as SessionsService;
  const tokens = {
    authenticate: async (token: string) => {
      if (token === 'arb_good') return BY_TOKEN;
      throw new UnauthorizedException('The API token is unknown, revoked or expired');
    },
  } as unknown as ApiTokensService;
  const forwardAuth = {
    resolve: async (req: FakeRequest) => (req.headers['remote-user'] === 'bob' ? BY_PROXY : undefined),
  } as unknown as ForwardAuth;
  const guard = new AuthenticationGuard(reflector, sessions, tokens, forwardAuth);

  it('stands aside on the proxy route synchronously, and on public routes', () => {
    expect(guard.canActivate(contextFor({}, 'proxy'))).toBe(true);
    expect(guard.canActivate(contextFor({}, 'http', true))).toBe(true);
  });

  it('names who calls a sign-in-optional route, and lets a caller with no or a dead credential through as no one', async () => {
    const signedIn = request('/api/auth/state', {}, 'good');
    await expect(guard.canActivate(contextFor(signedIn, 'http', 'optional'))).resolves.toBe(true);
    expect(signedIn.admin).toBe(BY_COOKIE);
    for (const nobody of [request('/api/auth/state'), request('/api/auth/state', {}, 'expired')]) {
      await expect(guard.canActivate(contextFor(nobody, 'http', 'optional'))).resolves.toBe(true);
      expect(nobody.admin).toBeUndefined();
    }
    // A plain public route reads no credential at all.
    const plain = request('/api/auth/methods', {}, 'good');
    expect(guard.canActivate(contextFor(plain, 'http', true))).toBe(true);
    expect(plain.admin).toBeUndefined();
  });

  it('names the administrator of a valid session cookie', async () => {
    const req = request('/api/auth/session', {}, 'good');
    await expect(guard.canActivate(contextFor(req))).resolves.toBe(true);
    expect(req.admin).toBe(BY_COOKIE);
  });

  it('takes an API token on the admin API only, and then never the cookie beside it', async () => {
    const good = request('/api/admin/v1/apps', { authorization: 'Bearer arb_good' });
    await expect(guard.canActivate(contextFor(good))).resolves.toBe(true);
    expect(good.admin).toBe(BY_TOKEN);
    const badWithCookie = request('/api/admin/v1/apps', { authorization: 'Bearer arb_bad' }, 'good');
    await expect(guard.canActivate(contextFor(badWithCookie))).rejects.toThrow(/unknown, revoked or expired/);
    const basic = request('/api/admin/v1/apps', { authorization: 'Basic YTpi' }, 'good');
    await expect(guard.canActivate(contextFor(basic))).rejects.toThrow(/Bearer/);
    // Outside the admin API a bearer token is no credential at all.
    const onAuth = request('/api/auth/session', { authorization: 'Bearer arb_good' });
    await expect(guard.canActivate(contextFor(onAuth))).rejects.toThrow(UnauthorizedException);
  });

  it('prefers the forward-auth header (when the forward-auth service honours it) over the cookie', async () => {
    const req = request('/api/auth/session', { 'remote-user': 'bob' }, 'good');
    await expect(guard.canActivate(contextFor(req))).resolves.toBe(true);
    expect(req.admin).toBe(BY_PROXY);
  });

  it('refuses without a credential, or with an unknown session', async () => {
    await expect(guard.canActivate(contextFor(request('/api/admin/v1/apps')))).rejects.toThrow(UnauthorizedException);
    await expect(guard.canActivate(contextFor(request('/api/admin/v1/apps', {}, 'forged')))).rejects.toThrow(
      UnauthorizedException,
    );
  });

  it('holds an editor or viewer with a generated password off the admin API (not the auth API, not an owner)', async () => {
    const api = request('/api/admin/v1/apps', {}, 'generated-editor');
    await expect(guard.canActivate(contextFor(api))).rejects.toThrow(/choose your own password/);
    await expect(guard.canActivate(contextFor(request('/API/Admin/v1/apps', {}, 'generated-editor')))).rejects.toThrow(
      ForbiddenException,
    );
    await expect(guard.canActivate(contextFor(request('/api/auth/password', {}, 'generated-editor')))).resolves.toBe(
      true,
    );
    await expect(guard.canActivate(contextFor(request('/api/admin/v1/apps', {}, 'generated-owner')))).resolves.toBe(
      true,
    );
  });
});
