import type { ResolvedRoute } from '@arrbiter/server/catalog';
import type { ProxyState } from './proxy-registry';

/** What the gateway decided about an allowed request. */
export interface AllowedRequest {
  proxy: ProxyState;
  /** Canonical upstream path (what was checked is what is forwarded). */
  path: string;
  /** Raw query without any `apikey` parameter. */
  query: string;
  route: ResolvedRoute;
}

/** Fields of the access log line, never a key or a query. */
export interface AccessLogFields {
  app: string;
  proxyId?: string;
  method: string;
  path?: string;
  route?: string | null;
  outcome: 'unauthorized' | 'bad-path' | 'forbidden' | 'forwarded' | 'upstream-unreachable' | 'upstream-timeout';
  upstreamMs?: number;
  /** Outside the allowlist, forwarded because the proxy was learning. */
  learned?: boolean;
}
