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

  async canActivate(context: ExecutionContext): Promise<boolean> {
    // The admin API's guard: the proxy route's pipeline (context type 'proxy') has its own credential.
    if (context.getType() !== 'http') return true;
    const isPublic = this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (isPublic) return true;
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const token: unknown = request.cookies?.[SESSION_COOKIE];
    const admin = typeof token === 'string' ? await this.sessions.resolve(token) : null;
    if (!admin) throw new UnauthorizedException('Sign in to continue');
    request.admin = admin;
    return true;
  }
}
