import { CanActivate, ExecutionContext, Injectable, UnauthorizedException } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AdminRequest } from '../admin-principal';
import { IS_PUBLIC } from '../decorators/public.decorator';
import { SESSION_COOKIE } from '../session-cookie';
import { SessionsService } from '../sessions.service';

/** Default deny: every route needs an admin session unless it is marked `@Public()`. */
@Injectable()
export class SessionGuard implements CanActivate {
  constructor(
    private readonly reflector: Reflector,
    private readonly sessions: SessionsService,
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
    if (isPublic) return true;
    return this.authenticate(context);
  }

  private async authenticate(context: ExecutionContext): Promise<boolean> {
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const token: unknown = request.cookies?.[SESSION_COOKIE];
    const admin = typeof token === 'string' ? await this.sessions.resolve(token) : null;
    if (!admin) throw new UnauthorizedException('Sign in to continue');
    request.admin = admin;
    return true;
  }
}
