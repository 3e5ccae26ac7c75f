import type { RateLimit } from '@arrbiter/contracts';

/** The rate limit a proxy's (or the defaults') two columns hold; null when either is unset. */
export function rateLimitOf(row: {
  rateLimitPerMinute: number | null;
  rateLimitBurst: number | null;
}): RateLimit | null {
  return row.rateLimitPerMinute === null || row.rateLimitBurst === null
    ? null
    : { perMinute: row.rateLimitPerMinute, burst: row.rateLimitBurst };
}
