import { CanActivate, ExecutionContext, Inject, Injectable, Optional } from '@nestjs/common';
import proxyAddr from 'proxy-addr';
import { ProxyAccess } from './proxy-access';
import { ProxyRequest, setProxyCall } from './proxy-context';
import { NO_SLUG_DETAIL, ProxyRefusal, UNAUTHORIZED_DETAIL } from './proxy-problem';
import { RateLimiter } from './rate-limiter';
import { TrustedProxies } from '@arrbiter/server/config';
import { PreviousKeyUsage } from '@arrbiter/server/proxies';
import { UnauthorizedCounter } from '@arrbiter/server/usage';
import { ProxyRegistry } from './proxy-registry';
import { RATE_LIMITED_ROUTE_KEY, WarningRecorder } from '@arrbiter/server/warnings';

export const RATE_LIMITED_DETAIL = "This proxy's rate limit is exceeded: retry after the time Retry-After gives";

/**
 * The proxy route's credential check (docs/architecture.md): the key (`X-Api-Key`, else `apikey` in the query),
 * its digest in the in-memory index, and the app's and proxy's state. The proxy found goes on the
 * request for the interceptor and the handler; every failure is the same 401 (404 when the URL names no
 * app), refused with a `ProxyRefusal`.
 */
@Injectable()
export class ProxyKeyGuard implements CanActivate {
  constructor(
    private readonly access: ProxyAccess,
    private readonly limiter: RateLimiter,
    private readonly warnings: WarningRecorder,
    private readonly previousKeyUsage: PreviousKeyUsage,
    /** The 401 counter (`null` with USAGE_COUNTING=false): fed here, on the 401 path only. */
    @Optional() @Inject(UnauthorizedCounter) private readonly unauthorized: UnauthorizedCounter | null = null,
    @Optional() @Inject(ProxyRegistry) private readonly registry: ProxyRegistry | null = null,
    @Optional() @Inject(TrustedProxies) private readonly trusted: TrustedProxies | null = null,
  ) {}

  canActivate(context: ExecutionContext): boolean {
    this.admit(context.switchToHttp().getRequest<ProxyRequest>());
    return true;
  }

  /**
   * The check itself, without Nest's execution context (`ProxyGateway.handle` calls it directly): puts
   * the call on the request, or throws a `ProxyRefusal`.
   */
  admit(request: ProxyRequest): void {
    const result = this.access.authenticate(request.url ?? '/', request.headers);
    if (result.outcome === 'unauthorized') {
      const fields = { method: request.method ?? 'GET', app: result.slug, outcome: 'unauthorized' } as const;
      if (result.slug === '') throw new ProxyRefusal(404, NO_SLUG_DETAIL, fields);
      // In memory, no query: the app from the proxy registry (null for a slug no app has), never the key.
      if (this.unauthorized !== null)
        this.unauthorized.count(
          this.registry?.app(result.slug)?.id ?? null,
          this.trusted === null ? request.socket?.remoteAddress : proxyAddr(request, this.trusted.trusts),
          request.headers['user-agent'],
        );
      throw new ProxyRefusal(401, UNAUTHORIZED_DETAIL, fields);
    }
    const proxy = result.proxy;
    // Every call made with a previous key counts, whatever comes of it: the client has not switched.
    if (result.previousKey && proxy.previousKey) this.previousKeyUsage.record(proxy.id, proxy.previousKey.digest);
    const admission = this.limiter.admit(proxy.id, proxy.rateLimit);
    if (!admission.admitted) {
      // Aggregated like a refused call: one row per proxy and method, counted (Warnings page).
      this.warnings.record({
        proxyId: proxy.id,
        appId: proxy.appId,
        method: (request.method ?? 'GET').toLowerCase(),
        path: result.rawPath || '/',
        route: null,
        routeKey: RATE_LIMITED_ROUTE_KEY,
        rateLimited: true,
      });
      const fields = {
        method: request.method ?? 'GET',
        app: proxy.appSlug,
        proxyId: proxy.id,
        outcome: 'rate-limited',
      } as const;
      throw new ProxyRefusal(429, RATE_LIMITED_DETAIL, fields, admission.retryAfterSeconds);
    }
    setProxyCall(request, { proxy: result.proxy, rawPath: result.rawPath, query: result.query, key: result.key });
  }
}
