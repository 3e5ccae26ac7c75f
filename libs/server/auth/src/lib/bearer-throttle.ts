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
const WINDOW_SECONDS = 15 * 60;

const OPTIONS: IRateLimiterOptions = {
  keyPrefix: 'bearer-address',
  points: BEARER_FAILURES_PER_ADDRESS,
  duration: WINDOW_SECONDS,
  blockDuration: WINDOW_SECONDS,
};

export class TooManyTokenFailuresException extends RetryAfterException {
  constructor(retryAfterSeconds: number) {
    super(
      `Too many refused API tokens from this address. Try again in ${retryAfterSeconds} seconds.`,
      HttpStatus.TOO_MANY_REQUESTS,
      retryAfterSeconds,
    );
  }
}

/**
 * Throttles refused `Authorization: Bearer` tokens per client address, in the sign-in throttle's store
 * (shared by replicas). A good token costs one read of the address's counter; only a refusal writes.
 * A token is 256 random bits, so this is not what keeps one from being guessed: it keeps a
 * misconfigured or hostile client from hammering the token lookup.
 */
export class BearerThrottle {
  constructor(private readonly limiter: RateLimiterAbstract = new RateLimiterMemory(OPTIONS)) {}

  static sharedThrough(dataSource: DataSource): BearerThrottle {
    return new BearerThrottle(sharedLimiter(dataSource, OPTIONS));
  }

  /** Throws 429 when the address has no refusal left. */
  async check(address: string): Promise<void> {
    const state = await this.limiter.get(address);
    if (state && state.consumedPoints >= BEARER_FAILURES_PER_ADDRESS) {
      throw new TooManyTokenFailuresException(Math.max(1, Math.ceil(state.msBeforeNext / 1000)));
    }
  }

  /** Counts a refusal; throws 429 when it was the address's last. */
  async refused(address: string): Promise<void> {
    try {
      await this.limiter.consume(address, 1);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw new TooManyTokenFailuresException(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      }
      throw rejection;
    }
  }
}
