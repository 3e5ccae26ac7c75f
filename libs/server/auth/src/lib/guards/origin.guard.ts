import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig, httpOrigin } from '@arrbiter/server/config';
import type { Request } from 'express';
import { bearerCredential } from '../bearer';
import { SKIP_ORIGIN_CHECK } from '@arrbiter/server/access';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery defence for the admin API: every write must come with an `Origin`
 * (or, failing that, a `Referer`) of `PUBLIC_URL` or `ALLOWED_ORIGINS`, unless it carries an API token.
 * Runs before the authentication guard.
 */
@Injectable()
export class OriginGuard implements CanActivate {
  private readonly allowed: ReadonlySet<string>;

  constructor(
    private readonly reflector: Reflector,
    config: AppConfig,
  ) {
    this.allowed = new Set(config.allowedOrigins);
  }

  canActivate(context: ExecutionContext): boolean {
    // The admin API's guard: the proxy route's pipeline (context type 'proxy') has its own credential.
    if (context.getType() !== 'http') return true;
    const request = context.switchToHttp().getRequest<Request>();
    if (SAFE_METHODS.has(request.method)) return true;
    const skip = this.reflector.getAllAndOverride<boolean | undefined>(SKIP_ORIGIN_CHECK, [
      context.getHandler(),
      context.getClass(),
    ]);
    if (skip) return true;
    // An API token is no ambient credential (a browser never adds it by itself): no Origin needed. The
    // authentication guard then accepts only the token, never the cookie beside it.
    if (typeof bearerCredential(request) === 'string') return true;
    const origin = request.headers.origin ?? httpOrigin(request.headers.referer);
    if (origin === undefined || origin === 'null') {
      throw new ForbiddenException('A write must carry an Origin or Referer header');
    }
    if (!this.allowed.has(origin)) {
      throw new ForbiddenException(`Origin ${origin} is not allowed to make changes`);
    }
    return true;
  }
}
