import type { Request } from 'express';
import type { ResolvedRoute } from '@arrbiter/server/catalog';
import type { ProxyState } from './proxy-registry';

/** What the guard decided about an allowed request, for the handler and the interceptor. */
export interface AllowedRequest {
  proxy: ProxyState;
  /** Canonical upstream path (what was checked is what is forwarded). */
  path: string;
  /** Raw query without any `apikey` parameter. */
  query: string;
  route: ResolvedRoute;
}

/** Fields of the access log line (`res.locals.proxy`), never a key or a query. */
export interface AccessLogFields {
  app: string;
  proxyId?: string;
  method: string;
  path?: string;
  route?: string | null;
  outcome: 'unauthorized' | 'bad-path' | 'forbidden' | 'forwarded' | 'upstream-unreachable' | 'upstream-timeout';
  upstreamMs?: number;
}

const CONTEXT = Symbol('arrbiter.proxy');

export interface ProxyRequest extends Request {
  [CONTEXT]?: AllowedRequest;
}

export function setAllowed(request: Request, allowed: AllowedRequest): void {
  (request as ProxyRequest)[CONTEXT] = allowed;
}

export function allowedOf(request: Request): AllowedRequest {
  const allowed = (request as ProxyRequest)[CONTEXT];
  if (!allowed) throw new Error('proxy handler reached without the proxy guard');
  return allowed;
}
