import { CanActivate, ExecutionContext, Injectable } from '@nestjs/common';
import { ProxyAccess } from './proxy-access';
import { ProxyRequest, setProxyCall } from './proxy-context';
import { NO_SLUG_DETAIL, ProxyRefusal, UNAUTHORIZED_DETAIL } from './proxy-problem';

/**
 * The proxy route's credential check (docs/architecture.md): the key (`X-Api-Key`, else `apikey` in the query),
 * its digest in the in-memory index, and the app's and proxy's state. The proxy found goes on the
 * request for the interceptor and the handler; every failure is the same 401 (404 when the URL names no
 * app), refused with a `ProxyRefusal`.
 */
@Injectable()
export class ProxyKeyGuard implements CanActivate {
  constructor(private readonly access: ProxyAccess) {}

  canActivate(context: ExecutionContext): boolean {
    const request = context.switchToHttp().getRequest<ProxyRequest>();
    const result = this.access.authenticate(request.url ?? '/', request.headers);
    if (result.outcome === 'unauthorized') {
      const fields = { method: request.method ?? 'GET', app: result.slug, outcome: 'unauthorized' } as const;
      if (result.slug === '') throw new ProxyRefusal(404, NO_SLUG_DETAIL, fields);
      throw new ProxyRefusal(401, UNAUTHORIZED_DETAIL, fields);
    }
    setProxyCall(request, { proxy: result.proxy, rawPath: result.rawPath, query: result.query, key: result.key });
    return true;
  }
}
