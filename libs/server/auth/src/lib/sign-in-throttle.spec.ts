import { loadConfig } from '@arrbiter/server/config';
import { ArrbiterDataSource, openDataSource } from '@arrbiter/server/database';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { DataSource } from 'typeorm';
import {
  FAILURES_PER_ADDRESS,
  FAILURES_PER_USER_AND_ADDRESS,
  SignInThrottle,
  TooManySignInsException,
} from './sign-in-throttle';

class WrongPassword extends Error {}

/** A fake password check: counts how often it ran; `slow` keeps every attempt in flight together. */
function passwordCheck(outcome: 'right' | 'wrong', slow = false) {
  const check = async () => {
    check.calls += 1;
    if (slow) await new Promise((resolve) => setImmediate(resolve));
    if (outcome === 'wrong') throw new WrongPassword('wrong password');
    return true;
  };
  check.calls = 0;
  return check;
}

/** What an attempt ended with: the check's result, or the error it was refused with. */
const outcome = (attempt: Promise<unknown>) => attempt.catch((error: unknown) => error);

describe.each(['in memory', 'in PostgreSQL'] as const)(`${SignInThrottle.name} (%s)`, (store) => {
  let database: TestDatabase | undefined;
  let dataSource: ArrbiterDataSource | undefined;

  beforeAll(async () => {
    if (store === 'in memory') return;
    database = await createTestDatabase();
    dataSource = await openDataSource(loadConfig({ ...database.env, LOG_LEVEL: 'silent' }), {
      entities: [],
      migrate: true,
    });
  });
  afterAll(async () => {
    await dataSource?.destroy();
    await database?.drop();
  });
  beforeEach(async () => {
    await dataSource?.query('DELETE FROM sign_in_throttle');
  });

  /** A throttle with its own counters (memory), or the database's, shared by every throttle on it. */
  const newThrottle = () => (dataSource ? SignInThrottle.sharedThrough(dataSource) : new SignInThrottle());

  it('blocks a username on one address after too many failures, not other users or addresses', async () => {
    const throttle = newThrottle();
    const wrong = passwordCheck('wrong');
    for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS; i += 1) {
      expect(await outcome(throttle.attempt('Admin', '10.0.0.1', wrong))).toBeInstanceOf(WrongPassword);
    }
    const right = passwordCheck('right');
    expect(await outcome(throttle.attempt('admin', '10.0.0.1', right))).toBeInstanceOf(TooManySignInsException);
    expect(right.calls).toBe(0);
    await expect(throttle.attempt('admin', '10.0.0.2', right)).resolves.toBe(true);
    await expect(throttle.attempt('other', '10.0.0.1', right)).resolves.toBe(true);
  });

  it('tells when to retry', async () => {
    const throttle = newThrottle();
    for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS; i += 1)
      await outcome(throttle.attempt('a', 'x', passwordCheck('wrong')));
    const error = await outcome(throttle.attempt('a', 'x', passwordCheck('wrong')));
    expect(error).toBeInstanceOf(TooManySignInsException);
    expect((error as TooManySignInsException).retryAfterSeconds).toBeGreaterThan(14 * 60);
    expect((error as TooManySignInsException).getStatus()).toBe(429);
  });

  it('forgets a pair after a success', async () => {
    const throttle = newThrottle();
    const wrong = passwordCheck('wrong');
    for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS - 1; i += 1) await outcome(throttle.attempt('a', 'x', wrong));
    await expect(throttle.attempt('a', 'x', passwordCheck('right'))).resolves.toBe(true);
    for (let i = 0; i < FAILURES_PER_USER_AND_ADDRESS; i += 1) await outcome(throttle.attempt('a', 'x', wrong));
    expect(wrong.calls).toBe(2 * FAILURES_PER_USER_AND_ADDRESS - 1);
  });

  it('blocks an address that sprays many usernames', async () => {
    const throttle = newThrottle();
    for (let i = 0; i < FAILURES_PER_ADDRESS; i += 1)
      await outcome(throttle.attempt(`user${i}`, 'x', passwordCheck('wrong')));
    const right = passwordCheck('right');
    expect(await outcome(throttle.attempt('fresh', 'x', right))).toBeInstanceOf(TooManySignInsException);
    expect(right.calls).toBe(0);
  });

  it('does not count successes against the address', async () => {
    const throttle = newThrottle();
    for (let i = 0; i < FAILURES_PER_ADDRESS - 1; i += 1)
      await outcome(throttle.attempt(`user${i}`, 'x', passwordCheck('wrong')));
    for (let i = 0; i < 10; i += 1)
      await expect(throttle.attempt('admin', 'x', passwordCheck('right'))).resolves.toBe(true);
    expect(await outcome(throttle.attempt('last', 'x', passwordCheck('wrong')))).toBeInstanceOf(WrongPassword);
    expect(await outcome(throttle.attempt('admin', 'x', passwordCheck('right')))).toBeInstanceOf(
      TooManySignInsException,
    );
  });

  it('lets at most the allowed number of concurrent attempts of one username reach the password check', async () => {
    const throttle = newThrottle();
    const wrong = passwordCheck('wrong', true);
    const outcomes = await Promise.all(
      Array.from({ length: 40 }, () => outcome(throttle.attempt('admin', '10.0.0.1', wrong))),
    );
    expect(wrong.calls).toBe(FAILURES_PER_USER_AND_ADDRESS);
    expect(outcomes.filter((o) => o instanceof WrongPassword)).toHaveLength(FAILURES_PER_USER_AND_ADDRESS);
    expect(outcomes.filter((o) => o instanceof TooManySignInsException)).toHaveLength(
      40 - FAILURES_PER_USER_AND_ADDRESS,
    );
  });

  // Two throttles on two pools of one database: what two replicas do.
  (store === 'in PostgreSQL' ? it : it.skip)(
    'shares the counters between replicas: two together allow no more failures than one',
    async () => {
      // A second pool on the same database (the embedded one included).
      const other = await new DataSource({ ...(dataSource as DataSource).options, logger: undefined }).initialize();
      try {
        const replicas = [newThrottle(), SignInThrottle.sharedThrough(other)];
        const wrong = passwordCheck('wrong', true);
        const outcomes = await Promise.all(
          Array.from({ length: 20 }, (_, i) => outcome(replicas[i % 2].attempt('admin', '10.0.0.9', wrong))),
        );
        expect(wrong.calls).toBe(FAILURES_PER_USER_AND_ADDRESS);
        expect(outcomes.filter((o) => o instanceof TooManySignInsException)).toHaveLength(
          20 - FAILURES_PER_USER_AND_ADDRESS,
        );
      } finally {
        await other.destroy();
      }
    },
  );

  it('lets at most the allowed number of concurrent attempts of one address reach the password check', async () => {
    const throttle = newThrottle();
    const wrong = passwordCheck('wrong', true);
    const outcomes = await Promise.all(
      Array.from({ length: 2 * FAILURES_PER_ADDRESS }, (_, i) => outcome(throttle.attempt(`user${i}`, 'x', wrong))),
    );
    expect(wrong.calls).toBe(FAILURES_PER_ADDRESS);
    expect(outcomes.filter((o) => o instanceof TooManySignInsException)).toHaveLength(FAILURES_PER_ADDRESS);
  });
});
