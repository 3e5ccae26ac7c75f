import { TestClock } from '@arrbiter/server/config';
import { RateLimiter } from './rate-limiter';

describe(RateLimiter.name, () => {
  const limit = { perMinute: 60, burst: 3 };

  it('lets a burst through, then refuses with the seconds until the next call is allowed', () => {
    const clock = new TestClock();
    const limiter = new RateLimiter(clock);
    const results = Array.from({ length: 5 }, () => limiter.admit('p1', limit));
    expect(results.filter((r) => r.admitted)).toHaveLength(3);
    expect(results[3]).toEqual({ admitted: false, retryAfterSeconds: 1 });
    // One call a second refills.
    clock.advance(1000);
    expect(limiter.admit('p1', limit).admitted).toBe(true);
    expect(limiter.admit('p1', limit).admitted).toBe(false);
  });

  it('refills no further than the burst', () => {
    const clock = new TestClock();
    const limiter = new RateLimiter(clock);
    for (let i = 0; i < 3; i += 1) limiter.admit('p1', limit);
    clock.advance(60_000);
    const admitted = Array.from({ length: 5 }, () => limiter.admit('p1', limit)).filter((r) => r.admitted);
    expect(admitted).toHaveLength(3);
  });

  it('keeps proxies apart, lets everything through without a limit, and starts over when the limit changes', () => {
    const clock = new TestClock();
    const limiter = new RateLimiter(clock);
    for (let i = 0; i < 3; i += 1) limiter.admit('p1', limit);
    expect(limiter.admit('p1', limit).admitted).toBe(false);
    expect(limiter.admit('p2', limit).admitted).toBe(true);
    expect(Array.from({ length: 100 }, () => limiter.admit('p3', null)).every((r) => r.admitted)).toBe(true);
    expect(limiter.admit('p1', { perMinute: 6, burst: 1 }).admitted).toBe(true);
    expect(limiter.admit('p1', { perMinute: 6, burst: 1 })).toEqual({ admitted: false, retryAfterSeconds: 10 });
  });
});
