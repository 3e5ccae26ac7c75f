import { Logger } from '@nestjs/common';
import type { TransactionHost } from '@nestjs-cls/transactional';
import type { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import type { DatabaseLifecycle } from '@arrbiter/server/database';
import { MAX_ROUTE_LENGTH } from './entities/usage-route.entity';
import { UsageCounter } from './usage-counter';
import { columnsOf, USAGE_FLUSH_INTERVAL_MS, UsageRecorder } from './usage-recorder';

const P1 = '00000000-0000-4000-8000-000000000001';
const TEN = Date.UTC(2026, 10, 24, 10);

/** One upsert's rows as the database reads them from its parameters. */
type Upsert =
  | { table: 'usage_hour'; rows: { proxyId: string; hour: Date; forwarded: number; refused: number; errors: number }[] }
  | {
      table: 'usage_route';
      rows: { proxyId: string; hour: Date; method: string; route: string; count: number; lastSeen: Date }[];
    };

/** The elements of an array literal of numbers or ids (`{1,2}`), as PostgreSQL parses them. */
function elements(literal: unknown): string[] {
  const text = literal as string;
  expect(text).toMatch(/^\{[^{}"\\\s]*\}$/);
  return text === '{}' ? [] : text.slice(1, -1).split(',');
}

/** The rows of `UPSERT_HOURS` or `UPSERT_ROUTES`, joined by position as the statements join them. */
function rowsOf(sql: string, parameters: unknown[]): Upsert {
  const [proxyIds, hours] = [elements(parameters[0]), elements(parameters[1]).map(Number)];
  if (!sql.includes('usage_route')) {
    const [forwarded, refused, errors] = parameters.slice(2).map((column) => elements(column).map(Number));
    return {
      table: 'usage_hour',
      rows: proxyIds.map((proxyId, i) => ({
        proxyId,
        hour: new Date(hours[i]),
        forwarded: forwarded[i],
        refused: refused[i],
        errors: errors[i],
      })),
    };
  }
  const [at, methodAt, routeAt, count, lastSeen] = parameters.slice(2, 7).map((column) => elements(column).map(Number));
  const [methods, routes] = parameters.slice(7) as string[][];
  return {
    table: 'usage_route',
    rows: at.map((hourRow, i) => ({
      proxyId: proxyIds[hourRow - 1],
      hour: new Date(hours[hourRow - 1]),
      method: methods[methodAt[i] - 1],
      route: routes[routeAt[i] - 1],
      count: count[i],
      lastSeen: new Date(lastSeen[i]),
    })),
  };
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
  /** Each statement's parameters, as sent. */
  readonly parameters: unknown[][] = [];

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
      query: async (sql: string, parameters: unknown[]) => {
        this.queries += 1;
        this.parameters.push(parameters);
        this.upserts.push(rowsOf(sql, parameters));
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
    for (const upsert of this.upserts) {
      if (upsert.table !== 'usage_hour') continue;
      for (const row of upsert.rows) {
        const sum = (totals[row.proxyId] ??= [0, 0, 0]);
        [row.forwarded, row.refused, row.errors].forEach((value, c) => (sum[c] += value));
      }
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
      { table: 'usage_hour', rows: [{ proxyId: P1, hour: new Date(TEN), forwarded: 2, refused: 1, errors: 1 }] },
      {
        table: 'usage_route',
        rows: [
          {
            proxyId: P1,
            hour: new Date(TEN),
            method: 'get',
            route: '/api/v3/movie/{id}',
            count: 2,
            lastSeen: new Date(clock.time),
          },
          {
            proxyId: P1,
            hour: new Date(TEN),
            method: 'delete',
            route: '/api/v3/movie/{id}',
            count: 1,
            lastSeen: new Date(clock.time),
          },
        ],
      },
    ]);
    expect(recorder.written).toBe(1);
    // Nothing counted since: no query at all.
    await recorder.flush();
    expect(db.queries).toBe(2);
    expect(db.commits).toBe(1);
  });

  it('sends each method and route once, whichever proxies and hours count them', async () => {
    const P2 = '00000000-0000-4000-8000-000000000002';
    counter.count(P1, 'GET', '/api/v3/movie', false, false);
    counter.count(P2, 'GET', '/api/v3/movie', false, false);
    clock.time += 3_600_000;
    counter.count(P2, 'POST', '/api/v3/movie', false, false);
    counter.count(P2, 'GET', '/api/v3/series', false, false);
    await recorder.flush();
    const columns = db.parameters[1];
    expect(columns.slice(7)).toEqual([
      ['get', 'post'],
      ['/api/v3/movie', '/api/v3/series'],
    ]);
    const ELEVEN = new Date(TEN + 3_600_000);
    const routes = db.upserts[1];
    expect(routes.table).toBe('usage_route');
    if (routes.table !== 'usage_route') return;
    expect(routes.rows.map((row) => [row.proxyId, row.hour, row.method, row.route])).toEqual([
      [P1, new Date(TEN), 'get', '/api/v3/movie'],
      [P2, new Date(TEN), 'get', '/api/v3/movie'],
      [P2, ELEVEN, 'post', '/api/v3/movie'],
      [P2, ELEVEN, 'get', '/api/v3/series'],
    ]);
    expect(db.totals()).toEqual({ [P1]: [1, 0, 0], [P2]: [3, 0, 0] });
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
    expect(routes?.rows.map((row) => row.count)).toEqual([2]);
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
    const columns = columnsOf(counter.take());
    expect(columns).toMatchObject({ proxyIds: [P1], hours: [TEN], forwarded: [2], refused: [2], errors: [0] });
    expect(
      columns.at.map((_, i) => [
        columns.methods[columns.methodAt[i] - 1],
        columns.routes[columns.routeAt[i] - 1].length,
        columns.count[i],
      ]),
    ).toEqual([
      ['get', MAX_ROUTE_LENGTH, 2],
      ['get', '/api/v3/movie'.length, 2],
    ]);
    expect(columns.methods).toEqual(['get']);
  });
});
