import type { IncomingMessage } from 'node:http';
import type { ProxyState } from './proxy-registry';

/** Fields of the access log line, never a key or a query. */
export interface AccessLogFields {
  app: string;
  proxyId?: string;
  method: string;
  path?: string;
  route?: string | null;
  outcome:
    | 'unauthorized'
    | 'rate-limited'
    | 'bad-path'
    | 'forbidden'
    | 'forwarded'
    | 'upstream-unreachable'
    | 'upstream-timeout';
  upstreamMs?: number;
  /** Outside the allowlist, forwarded because the proxy was learning. */
  learned?: boolean;
}

/** What the guard and the interceptor found out about a proxy call, for the steps after them. */
export interface ProxyCall {
  /** Set by `ProxyKeyGuard`. */
  proxy: ProxyState;
  /** Everything after `/proxy/{slug}`, raw. */
  rawPath: string;
  /** The raw query without any `apikey` parameter. */
  query: string;
  /** The key the caller presented: responses carry it where the upstream wrote its own. Never logged. */
  key: string;
  /** Set by `AllowlistInterceptor` when the call may go on: the canonical path (what was checked is what is forwarded). */
  path?: string;
  /** The access line's fields, which the forwarding completes (outcome, upstream time). */
  fields?: AccessLogFields;
  /** When the access line's clock started (`performance.now()`). */
  started?: number;
}

const CALL = Symbol('arrbiter.proxyCall');

/** A request on the proxy route, carrying its `ProxyCall` from one step of the pipeline to the next. */
export type ProxyRequest = IncomingMessage & { [CALL]?: ProxyCall };

export function setProxyCall(request: ProxyRequest, call: ProxyCall): void {
  request[CALL] = call;
}

/** The call the guard put on the request, if it did (not on a call it refused). */
export function peekProxyCall(request: ProxyRequest): ProxyCall | undefined {
  return request[CALL];
}

/** The call the guard put on the request; an error when the pipeline was bypassed. */
export function proxyCallOf(request: ProxyRequest): ProxyCall {
  const call = request[CALL];
  if (!call) throw new Error('ProxyKeyGuard did not run for this request');
  return call;
}
