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
/**
 * Failed sign-ins of one username, from any address, before its back-off starts: from then on, an
 * attempt from a device that has not signed in before waits its turn (one per back-off interval,
 * from `MIN_BACKOFF_SECONDS` doubling to `MAX_BACKOFF_SECONDS`). A known device is never held back, so an attacker cannot lock
 * the real user out.
 */
export const FAILURES_PER_USERNAME = 10;
export const MAX_BACKOFF_SECONDS = 60;

export const MIN_BACKOFF_SECONDS = 15;

/** Seconds between attempts once a username has had `failures` failures: 15, 30, then 60. */
export function backoffSeconds(failures: number): number {
  const over = Math.max(0, failures - FAILURES_PER_USERNAME);
  return Math.min(MAX_BACKOFF_SECONDS, MIN_BACKOFF_SECONDS * 2 ** Math.min(over, 4));
}

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

/** Counts a username's failures over the window (never refuses by itself: the pace does). */
const PER_USERNAME: IRateLimiterOptions = {
  keyPrefix: 'sign-in-name',
  points: 1_000_000,
  duration: WINDOW_SECONDS,
};
/** One attempt per back-off interval (its duration, per attempt) for a username in back-off. */
const USERNAME_PACE: IRateLimiterOptions = {
  keyPrefix: 'sign-in-name-pace',
  points: 1,
  duration: MAX_BACKOFF_SECONDS,
};

interface Limiters {
  perUser: RateLimiterAbstract;
  perAddress: RateLimiterAbstract;
  perUsername: RateLimiterAbstract;
  usernamePace: RateLimiterAbstract;
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
      perUsername: new RateLimiterMemory(PER_USERNAME),
      usernamePace: new RateLimiterMemory(USERNAME_PACE),
    },
    private readonly metrics: Metrics | null = null,
  ) {}

  /**
   * Counters in the `sign_in_throttle` table, through the DataSource's pool (TypeORM's `pg` pool).
   * Should the database fail, each replica falls back to counting in memory until it answers again.
   */
  static sharedThrough(dataSource: DataSource, metrics: Metrics | null = null): SignInThrottle {
    return new SignInThrottle(
      {
        perUser: sharedLimiter(dataSource, PER_USER),
        perAddress: sharedLimiter(dataSource, PER_ADDRESS),
        perUsername: sharedLimiter(dataSource, PER_USERNAME),
        usernamePace: sharedLimiter(dataSource, USERNAME_PACE),
      },
      metrics,
    );
  }

  /**
   * Runs `verify` (the password check) as one sign-in attempt of this username from this address:
   * throws 429 without running it when the pair or the address has no attempt left, or when the
   * username is in back-off and `knownDevice` is false (a device that signed in as this username
   * before, `DeviceCookie`, is never held back by the username's back-off). A failure (any error of
   * `verify`) keeps the attempt counted, for the username too; a success forgets the pair's failures
   * and gives the address its attempt back.
   */
  async attempt<T>(username: string, address: string, verify: () => Promise<T>, knownDevice = false): Promise<T> {
    const { perUser, perAddress, perUsername } = this.limiters;
    const name = username.toLowerCase();
    const userKey = this.userKey(username, address);
    await this.take(perUser, userKey);
    try {
      await this.take(perAddress, address);
    } catch (error) {
      // Only the pair's point is given back: a refused `consume` leaves a blocked key at its limit
      // + 1, and giving that point back too would let concurrent attempts past the limit.
      await perUser.reward(userKey, 1);
      throw error;
    }
    if (!knownDevice) {
      try {
        await this.pace(name);
      } catch (error) {
        await Promise.all([perUser.reward(userKey, 1), perAddress.reward(address, 1)]);
        throw error;
      }
    }
    let result: T;
    try {
      result = await verify();
    } catch (error) {
      this.metrics?.signIns.inc({ result: 'failure' });
      await perUsername.penalty(name, 1);
      throw error;
    }
    this.metrics?.signIns.inc({ result: 'success' });
    await Promise.all([perUser.delete(userKey), perAddress.reward(address, 1)]);
    return result;
  }

  /**
   * Once the username has had its free failures, takes its one attempt of the current back-off
   * interval (429 with the wait when another attempt has it): the attempts of every address share it.
   */
  private async pace(name: string): Promise<void> {
    const failures = (await this.limiters.perUsername.get(name))?.consumedPoints ?? 0;
    if (failures < FAILURES_PER_USERNAME) return;
    try {
      await this.limiters.usernamePace.consume(name, 1, { customDuration: backoffSeconds(failures) });
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        this.metrics?.signIns.inc({ result: 'throttled' });
        throw new TooManySignInsException(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      }
      throw rejection;
    }
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
