import { CanActivate, ExecutionContext, ForbiddenException, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { ApiTokensService } from '../api-tokens.service';
import { bearerCredential, isAdminApiPath } from '../bearer';
import { ForwardAuth } from '../forward-auth';
import { SESSION_COOKIE } from '../session-cookie';
import { SessionsService, signsInWithGeneratedPassword } from '../sessions.service';
import { AdminPrincipal, AdminRequest, IS_PUBLIC, SIGN_IN_OPTIONAL } from '@arrbiter/server/access';

/**
 * Default deny: every route needs a signed-in administrator unless it is marked `@Public()`. Who it
 * is comes from, in this order:
 * 1. `Authorization: Bearer arb_…` on `/api/admin/v1/*`: an API token, and nothing else (a request
 *    with a bearer header never falls back to the cookie);
 * 2. the trusted forward-auth header, from a trusted peer only;
 * 3. the session cookie.
 * A session of an editor or viewer who still signs in with a generated password is refused on the
 * admin API (403) until they choose their own; `/api/auth/*` stays open to them.
 */
@Injectable()
export class AuthenticationGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionsService,
    private readonly tokens: ApiTokensService,
    private readonly forwardAuth: ForwardAuth,
  ) {}

  /**
   * Synchronous where it stands aside: the proxy route's pipeline (context type 'proxy') has its own
   * credential, and Nest awaits only a guard that returns a promise.
   */
  canActivate(context: ExecutionContext): boolean | Promise<boolean> {
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (!isPublic) return this.authenticate(context.switchToHttp().getRequest<AdminRequest>());
    if (
      this.reflector.getAllAndOverride<boolean | undefined>(SIGN_IN_OPTIONAL, [
        context.getHandler(),
        context.getClass(),
      ])
    )
      return this.identify(context.switchToHttp().getRequest<AdminRequest>());
    return true;
  }

  /** `@SignInOptional()`: who calls, when anyone does; a credential that does not work is no one. */
  private async identify(request: AdminRequest): Promise<boolean> {
    try {
      const admin = await this.principal(request);
      if (admin) request.admin = admin;
    } catch (error) {
      if (!(error instanceof UnauthorizedException)) throw error;
    }
    return true;
  }

  private async authenticate(request: AdminRequest): Promise<boolean> {
    const admin = await this.principal(request);
    if (!admin) throw new UnauthorizedException('Sign in to continue');
    if (admin.role !== 'owner' && signsInWithGeneratedPassword(admin) && isAdminApiPath(request.path)) {
      throw new ForbiddenException(
        'You sign in with a generated password: choose your own password (PUT /api/auth/password) first',
      );
    }
    request.admin = admin;
    return true;
  }

  private async principal(request: AdminRequest): Promise<AdminPrincipal | null> {
    const address = request.ip ?? request.socket.remoteAddress ?? 'unknown';
    const bearer = bearerCredential(request);
    if (bearer === null) throw new UnauthorizedException('Authorization must be "Bearer <API token>"');
    if (bearer !== undefined) return this.tokens.authenticate(bearer, address);
    const forwarded = await this.forwardAuth.resolve(request);
    if (forwarded) return forwarded;
    const token: unknown = request.cookies?.[SESSION_COOKIE];
    return typeof token === 'string' ? this.sessions.resolve(token, address) : null;
  }
}
