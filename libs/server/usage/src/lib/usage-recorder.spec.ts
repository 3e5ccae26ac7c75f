import { Logger } from '@nestjs/common';
import type { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { DatabaseLifecycle } from '@arrbiter/server/database';
import { MAX_ROUTE_LENGTH } from './entities/usage-route.entity';
import { UsageCounter } from './usage-counter';
import { rowsOf, USAGE_FLUSH_INTERVAL_MS, UsageRecorder } from './usage-recorder';

const P1 = '00000000-0000-4000-8000-000000000001';
const TEN = Date.UTC(2026, 10, 24, 10);

/** One upsert as the database received it: the statement's table and its columns' arrays. */
interface Upsert {
  table: 'usage_hour' | 'usage_route';
  columns: unknown[][];
}

/** A database whose transactions can be held "in progress" or failed. */
class FakeDatabase {
  readonly upserts: Upsert[] = [];
  /** Transactions committed. */
  commits = 0;
  private held: { resolve: () => void; reject: (error: Error) => void } | undefined;
  holdNext = false;
  failNext: Error | undefined;
  /** Statements sent, committed or not. */
  queries = 0;

  readonly txHost = {
    withTransaction: async (run: () => Promise<void>) => {
      const before = this.upserts.length;
      if (this.holdNext) {
        this.holdNext = false;
        await new Promise<void>((resolve, reject) => (this.held = { resolve, reject }));
      }
      if (this.failNext) {
        const error = this.failNext;
        this.failNext = undefined;
        throw error;
      }
      try {
        await run();
        this.commits += 1;
      } catch (error) {
        this.upserts.length = before; // rolled back
        throw error;
      }
    },
    tx: {
      query: async (sql: string, columns: unknown[][]) => {
        this.queries += 1;
        this.upserts.push({ table: sql.includes('usage_route') ? 'usage_route' : 'usage_hour', columns });
        return [];
      },
    },
  } as unknown as TransactionHost<TransactionalAdapterTypeOrm>;

  drains: (() => Promise<void>)[] = [];
  readonly lifecycle = {
    beforeClose: (drain: () => Promise<void>) => this.drains.push(drain),
  } as unknown as DatabaseLifecycle;

  release(): void {
    this.held?.resolve();
    this.held = undefined;
  }

  /** The sums of every committed hour row, per proxy: [forwarded, refused, errors]. */
  totals(): Record<string, number[]> {
    const totals: Record<string, number[]> = {};
    for (const { table, columns } of this.upserts) {
      if (table !== 'usage_hour') continue;
      (columns[0] as string[]).forEach((proxyId, i) => {
        const sum = (totals[proxyId] ??= [0, 0, 0]);
        for (let c = 0; c < 3; c += 1) sum[c] += (columns[2 + c] as number[])[i];
      });
    }
    return totals;
  }
}

class FakeClock {
  time = TEN + 60_000;
  now(): number {
    return this.time;
  }
}

describe(UsageRecorder.name, () => {
  let db: FakeDatabase;
  let clock: FakeClock;
  let counter: UsageCounter;
  let recorder: UsageRecorder;

  beforeEach(() => {
    jest.useFakeTimers({ doNotFake: ['queueMicrotask', 'nextTick'] });
    db = new FakeDatabase();
    clock = new FakeClock();
    counter = new UsageCounter(clock);
    recorder = new UsageRecorder(counter, db.txHost, db.lifecycle);
    jest.spyOn(Logger.prototype, 'warn').mockImplementation(() => undefined);
  });
  afterEach(() => {
    jest.useRealTimers();
    jest.restoreAllMocks();
  });

  it('upserts each proxy hour, and each route with its lower-case method, in one transaction', async () => {
    counter.count(P1, 'GET', '/api/v3/movie/{id}', false, false);
    counter.count(P1, 'GET', '/api/v3/movie/{id}', false, true);
    counter.count(P1, 'DELETE', '/api/v3/movie/{id}', true, false);
    await recorder.flush();
    expect(db.commits).toBe(1);
    expect(db.upserts).toEqual([
      {
        table: 'usage_hour',
        columns: [[P1], [new Date(TEN)], [2], [1], [1]],
      },
      {
        table: 'usage_route',
        columns: [
          [P1, P1],
          [new Date(TEN), new Date(TEN)],
          ['get', 'delete'],
          ['/api/v3/movie/{id}', '/api/v3/movie/{id}'],
          [2, 1],
          [new Date(clock.time), new Date(clock.time)],
        ],
      },
    ]);
    expect(recorder.written).toBe(1);
    // Nothing counted since: no query at all.
    await recorder.flush();
    expect(db.queries).toBe(2);
    expect(db.commits).toBe(1);
  });

  it('writes on its own every few seconds once the application has started', async () => {
    recorder.onApplicationBootstrap();
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    await jest.advanceTimersByTimeAsync(USAGE_FLUSH_INTERVAL_MS - 1);
    expect(db.commits).toBe(0);
    await jest.advanceTimersByTimeAsync(1);
    expect(db.totals()).toEqual({ [P1]: [1, 0, 0] });
  });

  it('keeps the counts of a failed write for the next one, added to the newer ones', async () => {
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    db.failNext = new Error('connection terminated');
    await recorder.flush(); // never throws
    expect(db.commits).toBe(0);
    expect(Logger.prototype.warn).toHaveBeenCalledWith(expect.stringContaining('connection terminated'));
    counter.count(P1, 'GET', '/api/v3/movie', true, false);
    await recorder.flush();
    expect(db.totals()).toEqual({ [P1]: [1, 1, 0] });
    const routes = db.upserts.find((u) => u.table === 'usage_route');
    expect(routes?.columns[4]).toEqual([2]);
  });

  it('a flush asked for during a write waits for it, then writes what was counted meanwhile', async () => {
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    db.holdNext = true;
    const first = recorder.flush();
    await jest.advanceTimersByTimeAsync(0);
    counter.count(P1, 'GET', '/api/v3/movie', true, false);
    let secondDone = false;
    const second = recorder.flush().then(() => (secondDone = true));
    await jest.advanceTimersByTimeAsync(0);
    expect(secondDone).toBe(false);
    db.release();
    await Promise.all([first, second]);
    expect(db.commits).toBe(2);
    expect(db.totals()).toEqual({ [P1]: [1, 1, 0] });
  });

  it('writes the rest when the database closes, and stops its timer', async () => {
    recorder.onApplicationBootstrap();
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    expect(db.drains).toHaveLength(1);
    await db.drains[0]();
    expect(db.totals()).toEqual({ [P1]: [1, 0, 0] });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('does nothing when counting is off', async () => {
    const off = new UsageRecorder(null, db.txHost, db.lifecycle);
    off.onApplicationBootstrap();
    await off.flush();
    expect(jest.getTimerCount()).toBe(0);
    expect(db.queries).toBe(0);
  });

  it('merges counts that become one row: methods lower-cased, long paths cut to the column', () => {
    counter.count(P1, 'GET', '/x'.repeat(MAX_ROUTE_LENGTH), true, false);
    counter.count(P1, 'GET', `${'/x'.repeat(MAX_ROUTE_LENGTH)}/more`, true, false);
    counter.count(P1, 'get', '/api/v3/movie', false, false);
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    const { hours, routes } = rowsOf(counter.take());
    expect(hours).toEqual([{ proxyId: P1, hour: new Date(TEN), forwarded: 2, refused: 2, errors: 0 }]);
    expect(routes.map((r) => [r.method, r.route.length, r.count])).toEqual([
      ['get', MAX_ROUTE_LENGTH, 2],
      ['get', '/api/v3/movie'.length, 2],
    ]);
  });
});
