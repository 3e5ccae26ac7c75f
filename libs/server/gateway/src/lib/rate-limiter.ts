import { Injectable } from '@nestjs/common';
import type { RateLimit } from '@arrbiter/contracts';
import { Clock } from '@arrbiter/server/config';

interface Bucket {
  limit: RateLimit;
  tokens: number;
  /** When `tokens` was last brought up to date, in epoch milliseconds. */
  at: number;
}

/** A call let through, or refused with how many whole seconds to wait before the next one is. */
export type Admission = { admitted: true } | { admitted: false; retryAfterSeconds: number };

const ADMITTED: Admission = { admitted: true };

/**
 * Per-proxy token buckets (design.md §3): a bucket holds up to `burst` calls and refills at
 * `perMinute / 60` calls a second; a call takes one. In memory and per replica: with N replicas behind
 * one address a proxy may make up to N times its limit (documented in docs/usage.md). A bucket is a few
 * numbers, kept by proxy id for as long as the process runs (also after its proxy is deleted).
 */
@Injectable()
export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>();

  constructor(private readonly clock: Clock) {}

  /** Takes a call from the bucket of `proxyId`, which starts full and starts over when its limit changes. */
  admit(proxyId: string, limit: RateLimit | null): Admission {
    if (limit === null) return ADMITTED;
    const now = this.clock.now();
    let bucket = this.buckets.get(proxyId);
    if (!bucket || bucket.limit.perMinute !== limit.perMinute || bucket.limit.burst !== limit.burst) {
      bucket = { limit, tokens: limit.burst, at: now };
      this.buckets.set(proxyId, bucket);
    }
    const perMs = limit.perMinute / 60_000;
    bucket.tokens = Math.min(limit.burst, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return ADMITTED;
    }
    return { admitted: false, retryAfterSeconds: Math.max(1, Math.ceil((1 - bucket.tokens) / perMs / 1000)) };
  }
}
