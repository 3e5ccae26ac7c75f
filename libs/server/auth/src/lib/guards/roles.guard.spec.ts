import { ExecutionContext, ForbiddenException, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AdminRole } from '@arrbiter/contracts';
import { RolesGuard } from './roles.guard';
import {
  AdminPrincipal,
  Credential,
  EditAccess,
  OwnerAccess,
  Public,
  ReadAccess,
  SessionOnly,
} from '@arrbiter/server/access';

class Routes {
  @ReadAccess()
  read(): string {
    return 'read';
  }

  @EditAccess()
  write(): string {
    return 'write';
  }

  @OwnerAccess()
  @SessionOnly()
  accounts(): string {
    return 'accounts';
  }

  /** A route somebody forgot to open to a role. */
  forgotten(): string {
    return 'forgotten';
  }

  @Public()
  open(): string {
    return 'open';
  }
}

function principal(role: AdminRole, credential: Credential = 'session'): AdminPrincipal {
  return { id: 'u1', username: 'someone', role, credential, actor: 'someone' };
}

function contextFor(route: keyof Routes, admin?: AdminPrincipal, type = 'http'): ExecutionContext {
  return {
    getType: () => type,
    switchToHttp: () => ({ getRequest: () => ({ admin, method: 'GET', path: `/api/admin/v1/${route}` }) }),
    getHandler: () => Routes.prototype[route],
    getClass: () => Routes,
  } as unknown as ExecutionContext;
}

describe(RolesGuard.name, () => {
  const guard = new RolesGuard(new Reflector());

  it('opens a route to the roles at or above the one it names', () => {
    expect(guard.canActivate(contextFor('read', principal('viewer')))).toBe(true);
    expect(() => guard.canActivate(contextFor('write', principal('viewer')))).toThrow(ForbiddenException);
    expect(guard.canActivate(contextFor('write', principal('editor')))).toBe(true);
    expect(guard.canActivate(contextFor('write', principal('owner')))).toBe(true);
    expect(() => guard.canActivate(contextFor('accounts', principal('editor')))).toThrow(/needs the owner role/);
    expect(guard.canActivate(contextFor('accounts', principal('owner')))).toBe(true);
  });

  it('refuses a route that names no role to everyone, owners included (default deny)', () => {
    for (const role of ['viewer', 'editor', 'owner'] as const) {
      expect(() => guard.canActivate(contextFor('forgotten', principal(role)))).toThrow(/not open to any role/);
    }
  });

  it('refuses API tokens on session-only routes, whatever their role', () => {
    expect(() => guard.canActivate(contextFor('accounts', principal('owner', 'token')))).toThrow(/API tokens cannot/);
    expect(guard.canActivate(contextFor('write', principal('editor', 'token')))).toBe(true);
  });

  it('lets public routes and the proxy pipeline through, and refuses a route with nobody signed in', () => {
    expect(guard.canActivate(contextFor('open'))).toBe(true);
    expect(guard.canActivate(contextFor('forgotten', undefined, 'proxy'))).toBe(true);
    expect(() => guard.canActivate(contextFor('read'))).toThrow(UnauthorizedException);
  });
});
