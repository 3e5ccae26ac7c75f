import { HttpStatus } from '@nestjs/common';
import { RetryAfterException } from '@arrbiter/server/http';
import type { Metrics } from '@arrbiter/server/metrics';
import {
  type IRateLimiterOptions,
  RateLimiterAbstract,
  RateLimiterMemory,
  RateLimiterPostgres,
  RateLimiterRes,
} from 'rate-limiter-flexible';
import type { DataSource } from 'typeorm';

const WINDOW_SECONDS = 15 * 60;

/** Failed sign-ins allowed per (username, client address), then per client address, per window. */
export const FAILURES_PER_USER_AND_ADDRESS = 5;
export const FAILURES_PER_ADDRESS = 30;

/** The table the PostgreSQL store keeps its counters in (`SignInThrottleEntity`, created by the migrations). */
export const SIGN_IN_THROTTLE_TABLE = 'sign_in_throttle';

export class TooManySignInsException extends RetryAfterException {
  constructor(retryAfterSeconds: number) {
    super(
      `Too many failed sign-ins. Try again in ${retryAfterSeconds} seconds.`,
      HttpStatus.TOO_MANY_REQUESTS,
      retryAfterSeconds,
    );
  }
}

/**
 * A limiter whose counters live in the `sign_in_throttle` table (its `keyPrefix` keeps them apart from
 * others'), through the DataSource's pool. Should the database fail, each replica counts in memory
 * until it answers again.
 */
export function sharedLimiter(dataSource: DataSource, options: IRateLimiterOptions): RateLimiterAbstract {
  return new RateLimiterPostgres({
    ...options,
    storeClient: dataSource,
    storeType: 'typeorm',
    tableName: SIGN_IN_THROTTLE_TABLE,
    tableCreated: true,
    insuranceLimiter: new RateLimiterMemory(options),
  });
}

const PER_USER: IRateLimiterOptions = {
  keyPrefix: 'sign-in-user',
  points: FAILURES_PER_USER_AND_ADDRESS,
  duration: WINDOW_SECONDS,
  blockDuration: WINDOW_SECONDS,
};
const PER_ADDRESS: IRateLimiterOptions = {
  keyPrefix: 'sign-in-address',
  points: FAILURES_PER_ADDRESS,
  duration: WINDOW_SECONDS,
  blockDuration: WINDOW_SECONDS,
};

interface Limiters {
  perUser: RateLimiterAbstract;
  perAddress: RateLimiterAbstract;
}

/**
 * Throttles failed sign-ins per username and client address (and per address across usernames).
 * Every attempt takes its point before the password is checked (an atomic `consume`), so concurrent
 * attempts cannot all pass a check made before any of them has failed; a success gives it back.
 *
 * The server keeps the counters in PostgreSQL (`sharedThrough`), so that replicas share them: N
 * replicas allow what one allows, not N times as much. The store's one statement per `consume` is an
 * atomic `INSERT … ON CONFLICT DO UPDATE … RETURNING`; the embedded database runs the same SQL.
 */
export class SignInThrottle {
  constructor(
    private readonly limiters: Limiters = {
      perUser: new RateLimiterMemory(PER_USER),
      perAddress: new RateLimiterMemory(PER_ADDRESS),
    },
    private readonly metrics: Metrics | null = null,
  ) {}

  /**
   * Counters in the `sign_in_throttle` table, through the DataSource's pool (TypeORM's `pg` pool).
   * Should the database fail, each replica falls back to counting in memory until it answers again.
   */
  static sharedThrough(dataSource: DataSource, metrics: Metrics | null = null): SignInThrottle {
    return new SignInThrottle(
      { perUser: sharedLimiter(dataSource, PER_USER), perAddress: sharedLimiter(dataSource, PER_ADDRESS) },
      metrics,
    );
  }

  /**
   * Runs `verify` (the password check) as one sign-in attempt of this username from this address:
   * throws 429 without running it when the pair or the address has no attempt left. A failure (any
   * error of `verify`) keeps the attempt counted; a success forgets the pair's failures and gives the
   * address its attempt back.
   */
  async attempt<T>(username: string, address: string, verify: () => Promise<T>): Promise<T> {
    const { perUser, perAddress } = this.limiters;
    const userKey = this.userKey(username, address);
    await this.take(perUser, userKey);
    try {
      await this.take(perAddress, address);
    } catch (error) {
      await perUser.reward(userKey, 1);
      throw error;
    }
    let result: T;
    try {
      result = await verify();
    } catch (error) {
      this.metrics?.signIns.inc({ result: 'failure' });
      throw error;
    }
    this.metrics?.signIns.inc({ result: 'success' });
    await Promise.all([perUser.delete(userKey), perAddress.reward(address, 1)]);
    return result;
  }

  private async take(limiter: RateLimiterAbstract, key: string): Promise<void> {
    try {
      await limiter.consume(key, 1);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        this.metrics?.signIns.inc({ result: 'throttled' });
        throw new TooManySignInsException(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      }
      throw rejection;
    }
  }

  private userKey(username: string, address: string): string {
    return `${username.toLowerCase()}|${address}`;
  }
}
