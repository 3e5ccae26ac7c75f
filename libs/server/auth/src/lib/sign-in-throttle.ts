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

/** Throttles failed sign-ins per username and client address (and per address across usernames). */
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

  /** Throws 429 when this username/address pair or this address is blocked. */
  async check(username: string, address: string): Promise<void> {
    const [user, client] = await Promise.all([
      this.perUser.get(this.userKey(username, address)),
      this.perAddress.get(address),
    ]);
    const blockedFor = Math.max(
      this.blockedMs(user, FAILURES_PER_USER_AND_ADDRESS),
      this.blockedMs(client, FAILURES_PER_ADDRESS),
    );
    if (blockedFor > 0) throw new TooManySignInsException(Math.ceil(blockedFor / 1000));
  }

  async recordFailure(username: string, address: string): Promise<void> {
    await Promise.all([this.perUser.penalty(this.userKey(username, address)), this.perAddress.penalty(address)]);
  }

  async recordSuccess(username: string, address: string): Promise<void> {
    await this.perUser.delete(this.userKey(username, address));
  }

  private userKey(username: string, address: string): string {
    return `${username.toLowerCase()}|${address}`;
  }

  private blockedMs(res: RateLimiterRes | null, limit: number): number {
    return res && res.consumedPoints >= limit ? res.msBeforeNext : 0;
  }
}
