import { CanActivate, ExecutionContext, ForbiddenException, Injectable } from '@nestjs/common';
import { Reflector } from '@nestjs/core';
import { AppConfig, ExternalUrls, httpOrigin } from '@arrbiter/server/config';
import type { Request } from 'express';
import { bearerCredential } from '../bearer';
import { SKIP_ORIGIN_CHECK } from '@arrbiter/server/access';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/**
 * Cross-site request forgery defence for the admin API: every write must come with an `Origin`
 * (or, failing that, a `Referer`) of `PUBLIC_URL` or `ALLOWED_ORIGINS`, unless it carries an API token.
 * With `PUBLIC_URL` unset, the request's own origin (scheme, host and port; forwarded ones only from a
 * `TRUST_PROXY` peer, see `ExternalUrls`) counts instead of it: the dashboard works at whatever address
 * it is opened at, and a page of another origin still cannot write. Runs before the authentication guard.
 */
@Injectable()
export class OriginGuard implements CanActivate {
  private readonly allowed: ReadonlySet<string>;

  constructor(
    private readonly reflector: Reflector,
    config: AppConfig,
    private readonly urls: ExternalUrls,
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
    const named = origin.toLowerCase();
    if (this.allowed.has(origin) || this.allowed.has(named)) return true;
    if (this.urls.configured) {
      throw new ForbiddenException(
        `Origin ${origin} is not allowed to make changes: PUBLIC_URL is ${this.urls.originOf(request)}. ` +
          `Open the dashboard there, or add ${origin} to ALLOWED_ORIGINS`,
      );
    }
    const own = this.urls.requestOrigin(request);
    if (own !== undefined && named === own) return true;
    throw new ForbiddenException(this.crossOrigin(origin, own));
  }

  /** Why a write from another origin is refused with `PUBLIC_URL` unset, and what fixes it. */
  private crossOrigin(origin: string, own: string | undefined): string {
    const refused = `Origin ${origin} is not allowed to make changes: it is not this server's own address (${own ?? 'unknown'}).`;
    const fix = ` Set PUBLIC_URL to the address the dashboard is opened at, or add ${origin} to ALLOWED_ORIGINS`;
    const schemeOnly =
      own !== undefined && origin.replace(/^https?:/i, '').toLowerCase() === own.replace(/^https?:/, '');
    if (!schemeOnly) return `${refused}${fix}`;
    return (
      `${refused} Only the scheme differs: if a reverse proxy terminates TLS, set TRUST_PROXY to its address so ` +
      `that its X-Forwarded-Proto counts.${fix}`
    );
  }
}
