import {
  CanActivate,
  ExecutionContext,
  ForbiddenException,
  Injectable,
  Logger,
  UnauthorizedException,
} from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import type { AdminRole } from '@arrbiter/contracts';
import { AdminRequest, hasRole, IS_PUBLIC, MIN_ROLE, SESSION_ONLY } from '@arrbiter/server/access';

/**
 * Roles, default deny: a route that is not `@Public()` opens only to the roles its handler names with
 * `@MinRole()` (`@ReadAccess()`, `@EditAccess()`, `@OwnerAccess()`); a handler that names none is
 * refused to everyone. Only the handler counts, never its controller, so that a route added later
 * cannot inherit a class-wide role it was not meant to have. `@SessionOnly()` routes refuse API tokens.
 * Runs after the authentication guard and before any body is read.
 */
@Injectable()
export class RolesGuard implements CanActivate {
  private readonly logger = new Logger(RolesGuard.name);

  constructor(private readonly reflector: Reflector) {}

  canActivate(context: ExecutionContext): boolean {
    if (context.getType() !== 'http') return true;
    const handler = context.getHandler();
    if (this.reflector.getAllAndOverride<boolean | undefined>(IS_PUBLIC, [handler, context.getClass()])) return true;
    const request = context.switchToHttp().getRequest<AdminRequest>();
    const admin = request.admin;
    if (!admin) throw new UnauthorizedException('Sign in to continue');
    const required = this.reflector.get<AdminRole | undefined>(MIN_ROLE, handler);
    if (required === undefined) {
      this.logger.error(`${request.method} ${request.path} names no role: refused to everyone (add @MinRole)`);
      throw new ForbiddenException('This route is not open to any role');
    }
    if (admin.credential === 'token' && this.reflector.get<boolean | undefined>(SESSION_ONLY, handler)) {
      throw new ForbiddenException('API tokens cannot manage accounts or tokens: sign in');
    }
    if (!hasRole(admin.role, required)) {
      throw new ForbiddenException(`This needs the ${required} role (you are ${admin.role})`);
    }
    return true;
  }
}
