import type { Logger } from '@nestjs/common';
import type { DatabaseLifecycle } from './database.module';
import { PeriodicJob } from './periodic-job';

describe('PeriodicJob', () => {
  let closers: (() => Promise<void>)[];
  let lines: string[];
  const lifecycle = { beforeClose: (fn: () => Promise<void>) => closers.push(fn) } as unknown as DatabaseLifecycle;
  const logger = {
    log: (line: string) => lines.push(`log ${line}`),
    warn: (line: string) => lines.push(`warn ${line}`),
  } as unknown as Logger;

  beforeEach(() => {
    jest.useFakeTimers();
    closers = [];
    lines = [];
  });
  afterEach(() => jest.useRealTimers());

  it('runs first after firstMs, then every intervalMs after a run ends; a failure is logged and the next run planned', async () => {
    const outcomes: (() => Promise<string | undefined>)[] = [
      async () => 'deleted 3',
      async () => {
        throw new Error('database gone');
      },
      async () => undefined,
    ];
    let runs = 0;
    const job = new PeriodicJob(lifecycle, {
      what: 'purge things',
      firstMs: 100,
      intervalMs: 1_000,
      logger,
      run: () => (outcomes[runs++] as () => Promise<string | undefined>)(),
    });
    job.start();
    await jest.advanceTimersByTimeAsync(99);
    expect(runs).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(runs).toBe(1);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(2);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(3);
    expect(lines).toEqual(['log deleted 3', 'warn Could not purge things: database gone']);
  });

  it('stops with the database, waiting for a run still going, and plans no other', async () => {
    let finish!: () => void;
    let runs = 0;
    let closed = false;
    const job = new PeriodicJob(lifecycle, {
      what: 'purge things',
      firstMs: 10,
      intervalMs: 10,
      logger,
      run: () => {
        runs += 1;
        return new Promise<undefined>((resolve) => (finish = () => resolve(undefined)));
      },
    });
    job.start();
    await jest.advanceTimersByTimeAsync(10);
    expect(runs).toBe(1);
    const closing = Promise.all(closers.map((close) => close())).then(() => (closed = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(closed).toBe(false);
    finish();
    await closing;
    expect(closed).toBe(true);
    await jest.advanceTimersByTimeAsync(1_000);
    expect(runs).toBe(1);
  });
});
