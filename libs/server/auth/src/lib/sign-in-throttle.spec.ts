import {
  FAILURES_PER_ADDRESS,
  FAILURES_PER_USER_AND_ADDRESS,
  SignInThrottle,
  TooManySignInsException,
} from './sign-in-throttle';

describe(SignInThrottle.name, () => {
  it('blocks a username on one address after too many failures, not other users or addresses', async () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS; i += 1) {
      await throttle.check('Admin', '10.0.0.1');
      await throttle.recordFailure('Admin', '10.0.0.1');
    }
    await expect(throttle.check('admin', '10.0.0.1')).rejects.toBeInstanceOf(TooManySignInsException);
    await expect(throttle.check('admin', '10.0.0.2')).resolves.toBeUndefined();
    await expect(throttle.check('other', '10.0.0.1')).resolves.toBeUndefined();
  });

  it('tells when to retry', async () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS; i += 1) await throttle.recordFailure('a', 'x');
    const error = await throttle.check('a', 'x').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TooManySignInsException);
    expect((error as TooManySignInsException).retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect((error as TooManySignInsException).getStatus()).toBe(429);
  });

  it('forgets a pair after a success', async () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS - 1; i += 1) await throttle.recordFailure('a', 'x');
    await throttle.recordSuccess('a', 'x');
    await throttle.recordFailure('a', 'x');
    await expect(throttle.check('a', 'x')).resolves.toBeUndefined();
  });

  it('blocks an address that sprays many usernames', async () => {
    const throttle = new SignInThrottle();
    for (let i = 0; i < FAILURES_PER_ADDRESS; i += 1) await throttle.recordFailure(`user${i}`, 'x');
    await expect(throttle.check('fresh', 'x')).rejects.toBeInstanceOf(TooManySignInsException);
  });
});
