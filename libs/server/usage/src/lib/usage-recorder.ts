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
const UPSERT_HOURS = `
INSERT INTO usage_hour (proxy_id, hour, app_id, service_id, forwarded, refused, errors)
SELECT r.proxy_id, r.hour, p.app_id, p.service_id, r.forwarded, r.refused, r.errors
  FROM unnest($1::uuid[], $2::timestamptz[], $3::int[], $4::int[], $5::int[])
  AS r(proxy_id, hour, forwarded, refused, errors)
  JOIN proxy p ON p.id = r.proxy_id
ON CONFLICT (proxy_id, hour) DO UPDATE SET
  forwarded = usage_hour.forwarded + EXCLUDED.forwarded,
  refused = usage_hour.refused + EXCLUDED.refused,
  errors = usage_hour.errors + EXCLUDED.errors`;

const UPSERT_ROUTES = `
INSERT INTO usage_route (proxy_id, hour, method, route, count, last_seen)
SELECT r.* FROM unnest($1::uuid[], $2::timestamptz[], $3::varchar[], $4::varchar[], $5::int[], $6::timestamptz[])
  AS r(proxy_id, hour, method, route, count, last_seen)
 WHERE EXISTS (SELECT 1 FROM proxy WHERE proxy.id = r.proxy_id)
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

interface HourRow {
  proxyId: string;
  hour: Date;
  forwarded: number;
  refused: number;
  errors: number;
}

interface RouteRow {
  proxyId: string;
  hour: Date;
  method: string;
  route: string;
  count: number;
  lastSeen: number;
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
      const { hours, routes } = rowsOf(taken);
      await this.txHost.withTransaction(async () => {
        await this.txHost.tx.query(UPSERT_HOURS, [
          hours.map((row) => row.proxyId),
          hours.map((row) => row.hour),
          hours.map((row) => row.forwarded),
          hours.map((row) => row.refused),
          hours.map((row) => row.errors),
        ]);
        if (routes.length > 0)
          await this.txHost.tx.query(UPSERT_ROUTES, [
            routes.map((row) => row.proxyId),
            routes.map((row) => row.hour),
            routes.map((row) => row.method),
            routes.map((row) => row.route),
            routes.map((row) => row.count),
            routes.map((row) => new Date(row.lastSeen)),
          ]);
      });
      this.written += hours.length;
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

/**
 * The rows of what was counted, one per key: methods lower-cased and routes cut to the column's length
 * can make two counts one (a statement may not upsert one row twice).
 */
export function rowsOf(taken: readonly HourCount[]): { hours: HourRow[]; routes: RouteRow[] } {
  const hours = new Map<string, HourRow>();
  const routes = new Map<string, RouteRow>();
  for (const { hour, proxies } of taken) {
    const start = new Date(hour);
    for (const [proxyId, counted] of proxies) {
      const key = `${proxyId} ${hour}`;
      const row = hours.get(key);
      if (row === undefined)
        hours.set(key, {
          proxyId,
          hour: start,
          forwarded: counted.forwarded,
          refused: counted.refused,
          errors: counted.errors,
        });
      else {
        row.forwarded += counted.forwarded;
        row.refused += counted.refused;
        row.errors += counted.errors;
      }
      for (const [path, methods] of counted.routes) {
        const route = path.slice(0, MAX_ROUTE_LENGTH);
        for (const [verb, entry] of methods) {
          const method = verb.toLowerCase().slice(0, 10);
          const routeKey = `${key} ${method} ${route}`;
          const known = routes.get(routeKey);
          if (known === undefined)
            routes.set(routeKey, { proxyId, hour: start, method, route, count: entry.count, lastSeen: entry.lastSeen });
          else {
            known.count += entry.count;
            known.lastSeen = Math.max(known.lastSeen, entry.lastSeen);
          }
        }
      }
    }
  }
  return { hours: [...hours.values()], routes: [...routes.values()] };
}
