import { ExecutionContext, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AdminPrincipal } from '../admin-principal';
import { SESSION_COOKIE } from '../session-cookie';
import type { SessionsService } from '../sessions.service';
import { SessionGuard } from './session.guard';

const ADMIN = { id: 'admin-1', username: 'admin' } as AdminPrincipal;

function contextFor(request: object, type = 'http', isPublic = false): ExecutionContext {
  const handler = () => undefined;
  return {
    getType: () => type,
    switchToHttp: () => ({ getRequest: () => request }),
    getHandler: () => handler,
    getClass: () => (isPublic ? PublicController : PrivateController),
  } as unknown as ExecutionContext;
}
class PrivateController {}
class PublicController {}

describe(SessionGuard.name, () => {
  const reflector = {
    getAllAndOverride: (_key: string, [, type]: unknown[]) => type === PublicController,
  } as unknown as Reflector;
  const sessions = {
    resolve: async (token: string) => (token === 'good' ? ADMIN : null),
  } as unknown as SessionsService;
  const guard = new SessionGuard(reflector, sessions);

  it('stands aside on the proxy route synchronously: no promise for Nest to await per proxied call', () => {
    expect(guard.canActivate(contextFor({}, 'proxy'))).toBe(true);
  });

  it('lets a public route through without a session', () => {
    expect(guard.canActivate(contextFor({}, 'http', true))).toBe(true);
  });

  it('names the administrator of a valid session on the request', async () => {
    const request: { cookies: Record<string, string>; admin?: AdminPrincipal } = {
      cookies: { [SESSION_COOKIE]: 'good' },
    };
    await expect(guard.canActivate(contextFor(request))).resolves.toBe(true);
    expect(request.admin).toBe(ADMIN);
  });

  it('refuses without a session, or with an unknown one', async () => {
    await expect(guard.canActivate(contextFor({ cookies: {} }))).rejects.toThrow(UnauthorizedException);
    await expect(guard.canActivate(contextFor({ cookies: { [SESSION_COOKIE]: 'forged' } }))).rejects.toThrow(
      UnauthorizedException,
    );
  });
});
