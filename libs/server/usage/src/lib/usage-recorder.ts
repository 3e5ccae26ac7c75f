import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Inject, Injectable, Logger, OnApplicationBootstrap, Optional } from '@nestjs/common';
import { DatabaseLifecycle } from '@arrbiter/server/database';
import { MAX_ROUTE_LENGTH } from './entities/usage-route.entity';
import { UnauthorizedCount, UnauthorizedCounter } from './unauthorized-counter';
import { HourCount, UsageCounter } from './usage-counter';

/** How often what was counted is written (the usage endpoints also write this replica's first). */
export const USAGE_FLUSH_INTERVAL_MS = 5_000;

// The app and service of each proxy come from its row, and counts of proxies deleted meanwhile are left
// out by the join, in the same statement: no query before it, and no entity read into this process (with
// 1,000 proxies, reading their owners through TypeORM first made a write cost about 35 ms of CPU instead
// of 20, 1.6 µs instead of 0.9 per proxied call at the bench's rate; docs/performance-log.md, "Results —
// 2026-11-28 (night)").
//
// The rows go as columns (`UsageColumns`): numbers and ids as array literals joined here, each method
// and route once with the route rows pointing at them and at their hour row by position. Sent as one
// `Date` and one string per row through pg's own array encoding (two regular expressions per element, a
// `Date` formatted per timestamp), a write of 1,000 proxies took about 9 ms of CPU; as columns, about 5
// (docs/performance-log.md, "Results — 2026-11-29 (afternoon)").
const UPSERT_HOURS = `
INSERT INTO usage_hour (proxy_id, hour, app_id, service_id, forwarded, refused, errors)
SELECT r.proxy_id, to_timestamp(r.hour / 1000.0), p.app_id, p.service_id, r.forwarded, r.refused, r.errors
  FROM unnest($1::uuid[], $2::int8[], $3::int[], $4::int[], $5::int[])
  AS r(proxy_id, hour, forwarded, refused, errors)
  JOIN proxy p ON p.id = r.proxy_id
ON CONFLICT (proxy_id, hour) DO UPDATE SET
  forwarded = usage_hour.forwarded + EXCLUDED.forwarded,
  refused = usage_hour.refused + EXCLUDED.refused,
  errors = usage_hour.errors + EXCLUDED.errors`;

const UPSERT_ROUTES = `
INSERT INTO usage_route (proxy_id, hour, method, route, count, last_seen)
SELECT h.proxy_id, to_timestamp(h.hour / 1000.0), m.method, t.route, r.count, to_timestamp(r.last_seen / 1000.0)
  FROM unnest($3::int[], $4::int[], $5::int[], $6::int[], $7::int8[]) AS r(at, method_at, route_at, count, last_seen)
  JOIN unnest($1::uuid[], $2::int8[]) WITH ORDINALITY AS h(proxy_id, hour, at) ON h.at = r.at
  JOIN unnest($8::varchar[]) WITH ORDINALITY AS m(method, at) ON m.at = r.method_at
  JOIN unnest($9::varchar[]) WITH ORDINALITY AS t(route, at) ON t.at = r.route_at
 WHERE EXISTS (SELECT 1 FROM proxy WHERE proxy.id = h.proxy_id)
ON CONFLICT (proxy_id, hour, method, route) DO UPDATE SET
  count = usage_route.count + EXCLUDED.count,
  last_seen = GREATEST(usage_route.last_seen, EXCLUDED.last_seen)`;

// One statement per partial unique index: apps' rows, then the unknown-app row of each hour. Rows of apps
// deleted meanwhile are left out (a delete racing the write fails it: its counts wait for the next).
const UPSERT_UNAUTHORIZED_APPS = `
INSERT INTO unauthorized_usage (hour, app_id, count, last_seen, last_address, last_user_agent)
SELECT r.* FROM unnest($1::timestamptz[], $2::uuid[], $3::int[], $4::timestamptz[], $5::varchar[], $6::varchar[])
  AS r(hour, app_id, count, last_seen, last_address, last_user_agent)
 WHERE EXISTS (SELECT 1 FROM app WHERE app.id = r.app_id)
ON CONFLICT (app_id, hour) WHERE app_id IS NOT NULL DO UPDATE SET
  count = unauthorized_usage.count + EXCLUDED.count,
  last_seen = GREATEST(unauthorized_usage.last_seen, EXCLUDED.last_seen),
  last_address = CASE WHEN EXCLUDED.last_seen >= unauthorized_usage.last_seen THEN EXCLUDED.last_address ELSE unauthorized_usage.last_address END,
  last_user_agent = CASE WHEN EXCLUDED.last_seen >= unauthorized_usage.last_seen THEN EXCLUDED.last_user_agent ELSE unauthorized_usage.last_user_agent END`;

const UPSERT_UNAUTHORIZED_UNKNOWN = `
INSERT INTO unauthorized_usage (hour, app_id, count, last_seen, last_address, last_user_agent)
SELECT r.hour, NULL, r.count, r.last_seen, r.last_address, r.last_user_agent
  FROM unnest($1::timestamptz[], $2::int[], $3::timestamptz[], $4::varchar[], $5::varchar[])
  AS r(hour, count, last_seen, last_address, last_user_agent)
ON CONFLICT (hour) WHERE app_id IS NULL DO UPDATE SET
  count = unauthorized_usage.count + EXCLUDED.count,
  last_seen = GREATEST(unauthorized_usage.last_seen, EXCLUDED.last_seen),
  last_address = CASE WHEN EXCLUDED.last_seen >= unauthorized_usage.last_seen THEN EXCLUDED.last_address ELSE unauthorized_usage.last_address END,
  last_user_agent = CASE WHEN EXCLUDED.last_seen >= unauthorized_usage.last_seen THEN EXCLUDED.last_user_agent ELSE unauthorized_usage.last_user_agent END`;

/**
 * What was counted, as the upserts' columns. An hour row per proxy and hour; a route row per proxy,
 * hour, method and route, naming its hour row, method and route by their 1-based positions. Times are
 * epoch milliseconds.
 */
export interface UsageColumns {
  proxyIds: string[];
  hours: number[];
  forwarded: number[];
  refused: number[];
  errors: number[];
  /** Of each route row: its hour row. */
  at: number[];
  methodAt: number[];
  routeAt: number[];
  count: number[];
  lastSeen: number[];
  /** Lower-case, at most 10 characters; each once. */
  methods: string[];
  /** At most `MAX_ROUTE_LENGTH` characters; each once. */
  routes: string[];
}

/**
 * A PostgreSQL array literal of numbers or ids (UUIDs): elements that need no quoting, as `{1,2,3}`.
 * pg encodes a JavaScript array element by element, through two regular expressions each.
 */
function arrayLiteral(values: readonly (number | string)[]): string {
  return `{${values.join(',')}}`;
}

/**
 * Writes the proxy route's usage counters behind (no query on the hot path), as `WarningRecorder` writes warnings:
 * every `USAGE_FLUSH_INTERVAL_MS`, on request (`flush`, before the usage endpoints read) and once more
 * when the database closes, it takes what `UsageCounter` counted and upserts it in one transaction.
 * The upserts add to the stored counts, so several replicas sharing one database add up. Counts of
 * proxies deleted meanwhile are left out by the statements themselves; a failed write puts its counts
 * back for the next one. Nothing runs when counting is off (`USAGE_COUNTING=false`).
 */
@Injectable()
export class UsageRecorder implements OnApplicationBootstrap {
  private readonly logger = new Logger(UsageRecorder.name);
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  private droppedLogged = 0;
  private foldedLogged = 0;
  /** Hour rows sent to be upserted since start (for tests). */
  written = 0;
  /** Rows of 401s upserted since start (for tests). */
  unauthorizedWritten = 0;

  constructor(
    @Optional() @Inject(UsageCounter) private readonly counter: UsageCounter | null,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    lifecycle: DatabaseLifecycle,
    /** 401s of the proxy route (`null` with `USAGE_COUNTING=false`), written with the usage counters. */
    @Optional() @Inject(UnauthorizedCounter) private readonly unauthorized: UnauthorizedCounter | null = null,
  ) {
    // The last counts are written after the last request, before the database closes (a running write
    // is waited for, then the rest is written).
    lifecycle.beforeClose(async () => {
      clearInterval(this.timer);
      this.timer = undefined;
      await this.flush();
    });
  }

  onApplicationBootstrap(): void {
    if (this.counter === null) return;
    // A tick during a slow write leaves it be: the next tick writes what came meanwhile.
    this.timer = setInterval(() => {
      if (this.flushing === undefined) void this.flush();
    }, USAGE_FLUSH_INTERVAL_MS);
    this.timer.unref();
  }

  /**
   * Writes everything counted before the call. A write already running may have taken only part of
   * it: that one is waited for, then the rest is written. Never throws: a failed write (the database
   * away) is one warning line, and its counts wait for the next.
   */
  async flush(): Promise<void> {
    const counter = this.counter;
    if (counter === null) return;
    while (this.flushing !== undefined) await this.flushing;
    if (counter.empty && (this.unauthorized === null || this.unauthorized.empty)) return;
    this.flushing = this.write(counter)
      .catch((error: unknown) =>
        this.logger.warn(`Could not write usage counters (kept for the next write): ${(error as Error).message}`),
      )
      .finally(() => {
        this.flushing = undefined;
      });
    await this.flushing;
  }

  private async write(counter: UsageCounter): Promise<void> {
    await this.writeUnauthorized();
    if (counter.droppedRoutes > this.droppedLogged) {
      this.logger.warn(
        `${counter.droppedRoutes - this.droppedLogged} calls were counted without their route: too many distinct routes between two writes`,
      );
      this.droppedLogged = counter.droppedRoutes;
    }
    const taken = counter.take();
    if (taken.length === 0) return;
    try {
      const columns = columnsOf(taken);
      const rows = [arrayLiteral(columns.proxyIds), arrayLiteral(columns.hours)];
      await this.txHost.withTransaction(async () => {
        await this.txHost.tx.query(UPSERT_HOURS, [
          ...rows,
          arrayLiteral(columns.forwarded),
          arrayLiteral(columns.refused),
          arrayLiteral(columns.errors),
        ]);
        if (columns.at.length > 0)
          await this.txHost.tx.query(UPSERT_ROUTES, [
            ...rows,
            arrayLiteral(columns.at),
            arrayLiteral(columns.methodAt),
            arrayLiteral(columns.routeAt),
            arrayLiteral(columns.count),
            arrayLiteral(columns.lastSeen),
            columns.methods,
            columns.routes,
          ]);
      });
      this.written += columns.proxyIds.length;
    } catch (error) {
      // Kept for the next write (added to what was counted since).
      counter.restore(taken);
      throw error;
    }
  }

  /** Writes the 401s counted so far (their own transaction); a failed write puts them back for the next. */
  private async writeUnauthorized(): Promise<void> {
    const unauthorized = this.unauthorized;
    if (unauthorized === null || unauthorized.empty) return;
    if (unauthorized.folded > this.foldedLogged) {
      this.logger.warn(
        `${unauthorized.folded - this.foldedLogged} calls refused with 401 were counted as an unknown app: too many apps between two writes`,
      );
      this.foldedLogged = unauthorized.folded;
    }
    const taken = unauthorized.take();
    const apps = taken.filter((row) => row.appId !== null);
    const unknown = taken.filter((row) => row.appId === null);
    try {
      await this.txHost.withTransaction(async () => {
        if (apps.length > 0)
          await this.txHost.tx.query(UPSERT_UNAUTHORIZED_APPS, [
            apps.map((row) => new Date(row.hour)),
            apps.map((row) => row.appId),
            apps.map((row) => row.count),
            apps.map((row) => new Date(row.lastSeen)),
            apps.map((row) => row.lastAddress),
            apps.map((row) => row.lastUserAgent),
          ]);
        if (unknown.length > 0)
          await this.txHost.tx.query(UPSERT_UNAUTHORIZED_UNKNOWN, [
            unknown.map((row) => new Date(row.hour)),
            unknown.map((row) => row.count),
            unknown.map((row) => new Date(row.lastSeen)),
            unknown.map((row) => row.lastAddress),
            unknown.map((row) => row.lastUserAgent),
          ]);
      });
      this.unauthorizedWritten += taken.length;
    } catch (error) {
      unauthorized.restore(taken as UnauthorizedCount[]);
      throw error;
    }
  }
}

/** The 1-based position of `value` in `list`, added at its end when it is not there yet. */
function positionOf(value: string, list: string[], positions: Map<string, number>): number {
  let at = positions.get(value);
  if (at === undefined) {
    at = list.push(value);
    positions.set(value, at);
  }
  return at;
}

/**
 * The columns of what was counted, one row per key: methods lower-cased and routes cut to the column's
 * length can make two counts one (a statement may not upsert one row twice). The hours taken are
 * distinct (`UsageCounter` only rolls forward, and `restore` adds to an hour it holds), and so are the
 * proxies within an hour.
 */
export function columnsOf(taken: readonly HourCount[]): UsageColumns {
  const columns: UsageColumns = {
    proxyIds: [],
    hours: [],
    forwarded: [],
    refused: [],
    errors: [],
    at: [],
    methodAt: [],
    routeAt: [],
    count: [],
    lastSeen: [],
    methods: [],
    routes: [],
  };
  const methodPositions = new Map<string, number>();
  /** By the method as counted (`GET`): its lower-case form's position. */
  const verbPositions = new Map<string, number>();
  const routePositions = new Map<string, number>();
  /** One hour row's route rows, by method and route positions (`methodAt * 2^32 + routeAt`). */
  const routeRows = new Map<number, number>();
  for (const { hour, proxies } of taken) {
    for (const [proxyId, counted] of proxies) {
      const at = columns.proxyIds.push(proxyId);
      routeRows.clear();
      columns.hours.push(hour);
      columns.forwarded.push(counted.forwarded);
      columns.refused.push(counted.refused);
      columns.errors.push(counted.errors);
      for (const [path, methods] of counted.routes) {
        const routeAt = positionOf(path.slice(0, MAX_ROUTE_LENGTH), columns.routes, routePositions);
        for (const [verb, entry] of methods) {
          let methodAt = verbPositions.get(verb);
          if (methodAt === undefined) {
            methodAt = positionOf(verb.toLowerCase().slice(0, 10), columns.methods, methodPositions);
            verbPositions.set(verb, methodAt);
          }
          const key = methodAt * 4_294_967_296 + routeAt;
          const row = routeRows.get(key);
          if (row === undefined) {
            routeRows.set(key, columns.at.push(at) - 1);
            columns.methodAt.push(methodAt);
            columns.routeAt.push(routeAt);
            columns.count.push(entry.count);
            columns.lastSeen.push(entry.lastSeen);
          } else {
            columns.count[row] += entry.count;
            columns.lastSeen[row] = Math.max(columns.lastSeen[row], entry.lastSeen);
          }
        }
      }
    }
  }
  return columns;
}
