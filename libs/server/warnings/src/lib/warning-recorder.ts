import { Injectable, Logger } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import { DatabaseLifecycle, WARNING_FLUSH_LOCK } from '@arrbiter/server/database';
import { Notifier } from '@arrbiter/server/notifications';
import { ProxiesService } from '@arrbiter/server/proxies';
import { Repository } from 'typeorm';
import { AccessWarningEntity } from './entities/access-warning.entity';
import { samplePath } from './unknown-path-shape';

/** One refused request, as the gateway reports it. */
export interface RefusedRequest {
  proxyId: string;
  appId: string;
  method: string;
  path: string;
  route: string | null;
  /**
   * What the proxy's warnings are aggregated by: the route's shape, `unknownPathShape` of a path that
   * resolves to no route (bounded), or `RATE_LIMITED_ROUTE_KEY`.
   */
  routeKey: string;
  /** Forwarded anyway because the proxy was learning: the warning's status becomes `learned`. */
  learned?: boolean;
  /** Refused by the proxy's rate limit: the warning's status is `rate-limited` (see `RATE_LIMITED_ROUTE_KEY`). */
  rateLimited?: boolean;
}

/** The route key of a proxy's rate-limited calls: one row per proxy and method, whatever the path. */
export const RATE_LIMITED_ROUTE_KEY = '(rate limit)';

/** Distinct warning rows a proxy has at most (besides its "other paths" row). */
export const WARNING_ROWS_PER_PROXY = 200;
/** The route key and method of a proxy's "other paths" row: what was refused past its 200 rows. */
export const OTHER_PATHS_ROUTE_KEY = '(other paths)';
export const OTHER_PATHS_METHOD = '*';

interface Pending extends RefusedRequest {
  count: number;
  firstSeen: Date;
  lastSeen: Date;
  /** The proxy's "other paths" row. */
  other?: boolean;
}

/** Distinct warnings held in memory at most; beyond that new ones are counted as dropped. */
export const MAX_PENDING = 10_000;
const BATCH = 500;
const FLUSH_INTERVAL_MS = 1_000;

/**
 * Upserts a batch and answers the rows that are news: inserted as refused (`open`, `rate-limited`), or
 * refused again after a grant (`granted` → `open`). `xmax = 0` marks a row this statement inserted
 * (not one another replica inserted first, which this statement then updated).
 *
 * A proxy keeps at most `$13` distinct rows: a batch's new keys are inserted while the proxy's count
 * (computed here, so it holds across restarts and replicas: the flushes take `WARNING_FLUSH_LOCK`) stays
 * within it, catalogue routes first, then the most refused; the rest, with what the recorder already
 * folded in memory, is added to the proxy's one "other paths" row (`other_paths`, method `*`), which is
 * never news (nothing to grant).
 */
const UPSERT = `
WITH input AS (
  SELECT * FROM unnest($1::uuid[], $2::uuid[], $3::varchar[], $4::varchar[], $5::varchar[], $6::varchar[], $7::int[], $8::timestamptz[], $9::timestamptz[], $10::boolean[], $11::boolean[], $12::boolean[])
    AS u(proxy_id, app_id, method, path, route, route_key, count, first_seen, last_seen, learned, rate_limited, other_paths)
), before AS (
  SELECT w.proxy_id, w.method, w.route_key, w.status FROM access_warning w
  JOIN input i ON w.proxy_id = i.proxy_id AND w.method = i.method AND w.route_key = i.route_key
), stored AS (
  SELECT w.proxy_id, count(*)::int AS n FROM access_warning w
  WHERE w.proxy_id IN (SELECT proxy_id FROM input) AND NOT w.other_paths
  GROUP BY w.proxy_id
), placed AS (
  SELECT i.*, i.other_paths OR (b.status IS NULL AND COALESCE(s.n, 0) + row_number() OVER (
    PARTITION BY i.proxy_id, (b.status IS NULL AND NOT i.other_paths)
    ORDER BY i.route IS NULL, i.count DESC, i.first_seen, i.route_key
  ) > $13) AS overflow
  FROM input i
  LEFT JOIN before b ON b.proxy_id = i.proxy_id AND b.method = i.method AND b.route_key = i.route_key
  LEFT JOIN stored s ON s.proxy_id = i.proxy_id
), admitted AS (
  SELECT proxy_id, app_id, method, path, route, route_key, count, first_seen, last_seen,
    CASE WHEN rate_limited THEN 'rate-limited' WHEN learned THEN 'learned' ELSE 'open' END AS status,
    false AS other_paths
  FROM placed WHERE NOT overflow
  UNION ALL
  SELECT proxy_id, (array_agg(app_id))[1], '${OTHER_PATHS_METHOD}', (array_agg(path ORDER BY last_seen DESC))[1], NULL,
    '${OTHER_PATHS_ROUTE_KEY}', sum(count)::int, min(first_seen), max(last_seen), 'open', true
  FROM placed WHERE overflow GROUP BY proxy_id
), written AS (
  INSERT INTO access_warning (proxy_id, app_id, method, path, route, route_key, count, first_seen, last_seen, status, other_paths)
  SELECT proxy_id, app_id, method, path, route, route_key, count, first_seen, last_seen, status, other_paths FROM admitted
  ON CONFLICT (proxy_id, method, route_key) DO UPDATE SET
    count = access_warning.count + EXCLUDED.count,
    last_seen = GREATEST(access_warning.last_seen, EXCLUDED.last_seen),
    path = EXCLUDED.path,
    route = EXCLUDED.route,
    -- Refused again after a grant (the grant was taken back): open again. A dismissal stands.
    status = CASE
      WHEN access_warning.status = 'dismissed' THEN 'dismissed'
      WHEN EXCLUDED.status = 'learned' THEN 'learned'
      WHEN access_warning.status = 'granted' THEN 'open'
      ELSE access_warning.status
    END
  RETURNING proxy_id, method, route_key, route, path, status, other_paths, (xmax = 0) AS inserted
)
SELECT w.proxy_id AS "proxyId", w.method, w.route_key AS "routeKey", w.route, w.path, w.status, w.inserted
FROM written w LEFT JOIN before b ON b.proxy_id = w.proxy_id AND b.method = w.method AND b.route_key = w.route_key
WHERE NOT w.other_paths AND (
  (w.inserted AND w.status IN ('open', 'rate-limited'))
  OR (NOT w.inserted AND b.status = 'granted' AND w.status = 'open'))`;

/** A row of a batch that is news (see `UPSERT`). */
interface NewWarning {
  proxyId: string;
  method: string;
  routeKey: string;
  route: string | null;
  path: string;
  status: 'open' | 'rate-limited';
  inserted: boolean;
}

/**
 * Records refused requests without ever delaying or failing one: `record` only updates an in-memory
 * aggregate, bounded (`MAX_PENDING` distinct warnings, `WARNING_ROWS_PER_PROXY` per proxy and one
 * "other paths" entry past them, each sample path cut to `SAMPLE_MAX_LENGTH`); a write-behind flush upserts it in batches every second. Warnings of proxies
 * deleted meanwhile are left out (ProxiesService answers which still exist, one query per batch); one
 * deleted between that answer and the upsert fails the batch on the foreign key, and the next flush
 * leaves it out. A warning that is new (a route's first refusal on a proxy, or a refusal after a grant)
 * raises `warning.new` once its row is written, on this replica only.
 */
@Injectable()
export class WarningRecorder {
  private readonly logger = new Logger(WarningRecorder.name);
  private pending = new Map<string, Pending>();
  /** Per proxy: its distinct pending warnings, but its "other paths" entry. */
  private perProxy = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private flushing: Promise<void> | undefined;
  /** Set once the database is closing: nothing is scheduled any more. */
  private closed = false;
  private droppedSinceLog = 0;
  /** Rows upserted since start (for tests and the benchmark). */
  written = 0;
  dropped = 0;

  constructor(
    @InjectRepository(AccessWarningEntity) private readonly warnings: Repository<AccessWarningEntity>,
    private readonly proxies: ProxiesService,
    lifecycle: DatabaseLifecycle,
    private readonly notifier: Notifier,
  ) {
    // The last warnings are written after the last request, before the database closes: a running
    // flush is waited for, then what arrived while it ran is written too.
    lifecycle.beforeClose(async () => {
      this.closed = true;
      this.cancelTimer();
      await this.flush();
      if (this.pending.size > 0) await this.flush();
    });
  }

  record(request: RefusedRequest, now = new Date()): void {
    const key = `${request.proxyId}|${request.method}|${request.routeKey}`;
    const path = samplePath(request.path);
    const known = this.pending.get(key);
    if (known) {
      known.count += 1;
      known.lastSeen = now;
      known.path = path;
      known.learned = known.learned === true || request.learned === true;
    } else {
      this.add({ ...request, path, count: 1, firstSeen: now, lastSeen: now });
    }
    this.schedule(this.pending.size >= BATCH ? 0 : FLUSH_INTERVAL_MS);
  }

  /**
   * Adds a warning that is not pending yet, within the bounds: past `WARNING_ROWS_PER_PROXY` of its
   * proxy it goes to the proxy's "other paths" entry; past `MAX_PENDING`, it is dropped (counted).
   */
  private add(item: Pending): void {
    const proxyCount = this.perProxy.get(item.proxyId) ?? 0;
    if (!item.other && proxyCount < WARNING_ROWS_PER_PROXY && this.pending.size < MAX_PENDING) {
      this.pending.set(`${item.proxyId}|${item.method}|${item.routeKey}`, item);
      this.perProxy.set(item.proxyId, proxyCount + 1);
      return;
    }
    const otherKey = `${item.proxyId}|${OTHER_PATHS_METHOD}|${OTHER_PATHS_ROUTE_KEY}`;
    const other = this.pending.get(otherKey);
    if (other) {
      this.merge(other, item);
    } else if (this.pending.size < MAX_PENDING) {
      this.pending.set(otherKey, {
        ...item,
        method: OTHER_PATHS_METHOD,
        route: null,
        routeKey: OTHER_PATHS_ROUTE_KEY,
        learned: false,
        rateLimited: false,
        other: true,
      });
    } else {
      this.dropped += item.count;
      this.droppedSinceLog += item.count;
    }
  }

  /** Adds `item`'s calls to `into` (the same warning, or the "other paths" entry). */
  private merge(into: Pending, item: Pending): void {
    into.count += item.count;
    into.learned = !into.other && (into.learned === true || item.learned === true);
    if (item.firstSeen < into.firstSeen) into.firstSeen = item.firstSeen;
    if (item.lastSeen >= into.lastSeen) {
      into.lastSeen = item.lastSeen;
      into.path = item.path;
    }
  }

  /**
   * Writes what is pending; concurrent calls share one flush. Never throws. What is still pending
   * when it ends (recorded meanwhile, or kept after a failed write) gets the next flush scheduled.
   */
  flush(): Promise<void> {
    this.flushing ??= this.write()
      .catch((error: unknown) => {
        this.logger.error(`Could not write access warnings: ${(error as Error).message}`);
      })
      .finally(() => {
        this.flushing = undefined;
        if (this.pending.size > 0) this.schedule(FLUSH_INTERVAL_MS);
      });
    return this.flushing;
  }

  /**
   * At most one timer; the handle is cleared when it fires, so a timer that fired while a flush was
   * running (and joined it) never stands in the way of the next one.
   */
  private schedule(delayMs: number): void {
    if (this.timer || this.closed) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      void this.flush();
    }, delayMs);
    this.timer.unref();
  }

  private cancelTimer(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
  }

  private async write(): Promise<void> {
    this.cancelTimer();
    if (this.droppedSinceLog > 0) {
      this.logger.warn(
        `${this.droppedSinceLog} access warnings were dropped: more than ${MAX_PENDING} distinct ones were waiting`,
      );
      this.droppedSinceLog = 0;
    }
    const batch = this.pending;
    this.pending = new Map();
    this.perProxy = new Map();
    const items = [...batch.values()];
    const news: NewWarning[] = [];
    for (let i = 0; i < items.length; i += BATCH) {
      const chunk = items.slice(i, i + BATCH);
      try {
        const known = await this.proxies.existing(chunk.map((w) => w.proxyId));
        const rows = chunk.filter((w) => known.has(w.proxyId));
        if (rows.length > 0) {
          const parameters = [
            rows.map((w) => w.proxyId),
            rows.map((w) => w.appId),
            rows.map((w) => w.method),
            rows.map((w) => w.path.slice(0, 2048)),
            rows.map((w) => w.route),
            rows.map((w) => w.routeKey.slice(0, 2048)),
            rows.map((w) => w.count),
            rows.map((w) => w.firstSeen),
            rows.map((w) => w.lastSeen),
            rows.map((w) => w.learned === true),
            rows.map((w) => w.rateLimited === true),
            rows.map((w) => w.other === true),
            WARNING_ROWS_PER_PROXY,
          ];
          // One flush at a time across replicas, so that each counts the rows the other wrote.
          const fresh = (await this.warnings.manager.transaction(async (manager) => {
            await manager.query('SELECT pg_advisory_xact_lock($1)', [WARNING_FLUSH_LOCK]);
            return manager.query(UPSERT, parameters);
          })) as NewWarning[];
          news.push(...fresh);
        }
        this.written += chunk.length;
      } catch (error) {
        // Keep them for the next flush (merged with newer ones), within the same bound.
        this.logger.warn(`Could not write ${chunk.length} access warnings: ${(error as Error).message}`);
        for (const item of items.slice(i)) this.requeue(item);
        break;
      }
    }
    await this.notify(news);
  }

  /** `warning.new` for each new warning, named by its proxy's app and service. Never throws. */
  private async notify(news: NewWarning[]): Promise<void> {
    if (news.length === 0) return;
    try {
      const subjects = await this.proxies.subjects(news.map((w) => w.proxyId));
      for (const warning of news) {
        const proxy = subjects.get(warning.proxyId);
        if (!proxy) continue;
        this.notifier.raise({
          type: 'warning.new',
          proxy,
          method: warning.method,
          route: warning.route,
          routeKey: warning.routeKey,
          path: warning.path,
          status: warning.status,
          reopened: !warning.inserted,
        });
      }
    } catch (error) {
      this.logger.warn(`Could not notify ${news.length} new access warnings: ${(error as Error).message}`);
    }
  }

  private requeue(item: Pending): void {
    const newer = this.pending.get(`${item.proxyId}|${item.method}|${item.routeKey}`);
    if (newer) this.merge(newer, item);
    else this.add(item);
  }
}
