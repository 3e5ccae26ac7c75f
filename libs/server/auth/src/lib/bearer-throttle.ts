import { HttpStatus } from '@nestjs/common';
import { RetryAfterException } from '@arrbiter/server/http';
import {
  type IRateLimiterOptions,
  RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';
import { sharedLimiter } from './sign-in-throttle';

/** Refused API-token attempts allowed per client address per window, then 429 for the rest of it. */
export const BEARER_FAILURES_PER_ADDRESS = 20;
/**
 * Refused API-token attempts allowed from all addresses together per window: the ceiling that a
 * client choosing its own address (`X-Forwarded-For` under `TRUST_PROXY=true`) cannot get around.
 */
export const BEARER_FAILURES_GLOBAL = 200;
const WINDOW_SECONDS = 15 * 60;
const GLOBAL_KEY = 'all';

const OPTIONS: IRateLimiterOptions = {
  keyPrefix: 'bearer-address',
  points: BEARER_FAILURES_PER_ADDRESS,
  duration: WINDOW_SECONDS,
  blockDuration: WINDOW_SECONDS,
};

const GLOBAL_OPTIONS: IRateLimiterOptions = {
  keyPrefix: 'bearer-global',
  points: BEARER_FAILURES_GLOBAL,
  duration: WINDOW_SECONDS,
  blockDuration: WINDOW_SECONDS,
};

export class TooManyTokenFailuresException extends RetryAfterException {
  constructor(retryAfterSeconds: number, scope = 'from this address') {
    super(
      `Too many refused API tokens ${scope}. Try again in ${retryAfterSeconds} seconds.`,
      HttpStatus.TOO_MANY_REQUESTS,
      retryAfterSeconds,
    );
  }
}

/**
 * Throttles refused `Authorization: Bearer` tokens per client address and over all addresses (a
 * ceiling), in the sign-in throttle's store (shared by replicas). Only a token that fails the lookup
 * is counted, and only such a token is answered 429: a valid token is never refused, whatever the
 * counters say, and costs nothing here. A token is 256 random bits, so this is not what keeps one from
 * being guessed: it keeps a misconfigured or hostile client from hammering the token lookup and the log.
 */
export class BearerThrottle {
  constructor(
    private readonly perAddress: RateLimiterAbstract = new RateLimiterMemory(OPTIONS),
    private readonly global: RateLimiterAbstract = new RateLimiterMemory(GLOBAL_OPTIONS),
  ) {}

  static sharedThrough(dataSource: DataSource): BearerThrottle {
    return new BearerThrottle(sharedLimiter(dataSource, OPTIONS), sharedLimiter(dataSource, GLOBAL_OPTIONS));
  }

  /** Counts a refused token, per address and globally; throws 429 when either has no refusal left. */
  async refused(address: string): Promise<void> {
    await this.take(this.perAddress, address, 'from this address');
    await this.take(this.global, GLOBAL_KEY, 'from all addresses');
  }

  private async take(limiter: RateLimiterAbstract, key: string, scope: string): Promise<void> {
    try {
      await limiter.consume(key, 1);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw new TooManyTokenFailuresException(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)), scope);
      }
      throw rejection;
    }
  }
}
