import { HttpStatus, Injectable } from '@nestjs/common';
import { RetryAfterException } from '@arrbiter/server/http';
import { RateLimiterMemory, RateLimiterRes } from 'rate-limiter-flexible';

const WINDOW_SECONDS = 15 * 60;

/** Failed sign-ins allowed per (username, client address), then per client address, per window. */
export const FAILURES_PER_USER_AND_ADDRESS = 5;
export const FAILURES_PER_ADDRESS = 30;

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
 * Throttles failed sign-ins per username and client address (and per address across usernames).
 * Every attempt takes its point before the password is checked (an atomic `consume`), so concurrent
 * attempts cannot all pass a check made before any of them has failed; a success gives it back.
 */
@Injectable()
export class SignInThrottle {
  private readonly perUser = new RateLimiterMemory({
    keyPrefix: 'sign-in-user',
    points: FAILURES_PER_USER_AND_ADDRESS,
    duration: WINDOW_SECONDS,
    blockDuration: WINDOW_SECONDS,
  });
  private readonly perAddress = new RateLimiterMemory({
    keyPrefix: 'sign-in-address',
    points: FAILURES_PER_ADDRESS,
    duration: WINDOW_SECONDS,
    blockDuration: WINDOW_SECONDS,
  });

  /**
   * Runs `verify` (the password check) as one sign-in attempt of this username from this address:
   * throws 429 without running it when the pair or the address has no attempt left. A failure (any
   * error of `verify`) keeps the attempt counted; a success forgets the pair's failures and gives the
   * address its attempt back.
   */
  async attempt<T>(username: string, address: string, verify: () => Promise<T>): Promise<T> {
    const userKey = this.userKey(username, address);
    await this.take(this.perUser, userKey);
    try {
      await this.take(this.perAddress, address);
    } catch (error) {
      await this.perUser.reward(userKey, 1);
      throw error;
    }
    const result = await verify();
    await Promise.all([this.perUser.delete(userKey), this.perAddress.reward(address, 1)]);
    return result;
  }

  private async take(limiter: RateLimiterMemory, key: string): Promise<void> {
    try {
      await limiter.consume(key, 1);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw new TooManySignInsException(Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      }
      throw rejection;
    }
  }

  private userKey(username: string, address: string): string {
    return `${username.toLowerCase()}|${address}`;
  }
}
