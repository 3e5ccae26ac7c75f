import autocannon from 'autocannon';
import type { SeededApp } from './seed';

export type Mix = 'allowed' | 'denied' | 'mixed' | 'json1k' | 'json1m';

export interface LoadResult {
  requestsPerSecond: number;
  /** Latency percentiles, in milliseconds. */
  p50: number;
  p99: number;
  /** Responses whose status was not what the mix expects (2xx allowed, 403 denied). */
  unexpected: number;
  errors: number;
  total: number;
  /** Bytes received per response, headers included (wrk only). */
  bytesPerResponse?: number;
  /** The load generator's own CPU time per request, in microseconds (wrk only). */
  loadCpuPerRequest?: number;
}

/** The request mix: allowed reads by id, allowed list calls, denied calls (a secrets endpoint). */
function pathFor(mix: Mix, app: SeededApp, n: number): { path: string; denied: boolean } {
  const kind = mix === 'mixed' ? n % 3 : mix === 'denied' ? 2 : n % 2;
  if (kind === 0) return { path: `/proxy/${app.slug}/api/v3/movie/${(n % 5000) + 1}`, denied: false };
  if (kind === 1) return { path: `/proxy/${app.slug}/api/v3/movie`, denied: false };
  return { path: `/proxy/${app.slug}/api/v3/config/host`, denied: true };
}

/**
 * Drives `url` with autocannon: every request picks another app (so lookups span the whole state).
 * The measured cells use wrk (`wrk.ts`): autocannon is a Node.js process on the same cores and
 * saturates before the proxy does. It stays only where wrk cannot express the scenario: a fixed
 * offered rate (`rate`, the paced denied flood; Debian's wrk does not pace).
 */
export async function drive(
  url: string,
  apps: SeededApp[],
  mix: Mix,
  connections: number,
  durationSeconds: number,
  /** Offered requests per second in all (unbounded when absent). */
  rate?: number,
): Promise<LoadResult> {
  let n = 0;
  let denied = 0;
  let unexpected = 0;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url,
        connections,
        duration: durationSeconds,
        pipelining: 1,
        ...(rate ? { overallRate: rate } : {}),
        requests: [
          {
            method: 'GET',
            setupRequest: (request) => {
              n += 1;
              const app = apps[(n * 7919) % apps.length];
              const headers = { ...(request.headers ?? {}), 'x-api-key': app.key };
              return { ...request, path: pathFor(mix, app, n).path, headers, method: 'GET' };
            },
          },
        ],
      },
      (error, done) => (error ? reject(error) : resolve(done)),
    );
    instance.on('response', (_client, statusCode) => {
      if (statusCode === 403) denied += 1;
      else if (statusCode >= 400) unexpected += 1;
    });
  });
  const total = result.requests.total;
  if (mix === 'allowed') unexpected += denied;
  if (mix === 'denied') unexpected += total - denied - unexpected;
  return {
    requestsPerSecond: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    unexpected,
    errors: result.errors + result.timeouts,
    total,
  };
}
