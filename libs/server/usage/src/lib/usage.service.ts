import { BadRequestException, Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type {
  AppUsage,
  ProxyUsageResponse,
  RouteUsage,
  ServiceUsage,
  UsageBucket,
  UnauthorizedCalls,
  UnauthorizedCallsResponse,
  UsageCounts,
  UsageOverviewResponse,
} from '@arrbiter/contracts';
import { AppsService } from '@arrbiter/server/apps';
import { Clock } from '@arrbiter/server/config';
import { ProxiesService } from '@arrbiter/server/proxies';
import { ServicesService } from '@arrbiter/server/services';
import { routeShape } from '@arrbiter/shared/allowlist-rules';
import { Repository } from 'typeorm';
import { instantProblem, UsageRangeDto } from './dto/usage-range.dto';
import { UsageHourEntity } from './entities/usage-hour.entity';
import { HOUR_MS, hourOf } from './usage-counter';
import { UsageRecorder } from './usage-recorder';

/** The longest period one answer covers. */
export const MAX_USAGE_RANGE_DAYS = 90;
/** Routes listed at most, most called first. */
export const MAX_USAGE_ROUTES = 1000;

/** A period of whole hours: buckets start at `from` (on the hour), every hour before `to`. */
export interface UsageRange {
  from: Date;
  to: Date;
}

/** Sums as PostgreSQL returns them (bigint as text). */
interface CountsRow {
  forwarded: string;
  refused: string;
  errors: string;
}

function counts(row: CountsRow): UsageCounts {
  return { forwarded: Number(row.forwarded), refused: Number(row.refused), errors: Number(row.errors) };
}

const SUMS = 'sum(forwarded)::bigint AS forwarded, sum(refused)::bigint AS refused, sum(errors)::bigint AS errors';

/**
 * Reads the usage counters. Each answer first writes what this replica has counted and not
 * yet written (`UsageRecorder.flush`), so a call just made through it is in the answer; another
 * replica's calls arrive with its next write (every 5 s).
 */
@Injectable()
export class UsageService {
  constructor(
    @InjectRepository(UsageHourEntity) private readonly hours: Repository<UsageHourEntity>,
    private readonly recorder: UsageRecorder,
    private readonly proxies: ProxiesService,
    private readonly apps: AppsService,
    private readonly services: ServicesService,
    private readonly clock: Clock,
  ) {}

  /** The period of `?from=&to=`: defaults, checks (400 naming the parameter), and hours. */
  range(query: UsageRangeDto): UsageRange {
    const problems = [
      query.from === undefined ? undefined : instantProblem('from', query.from),
      query.to === undefined ? undefined : instantProblem('to', query.to),
    ].filter((problem): problem is string => problem !== undefined);
    if (problems.length > 0) throw new BadRequestException(problems);
    const to = query.to === undefined ? this.clock.now() : Date.parse(query.to);
    const from = query.from === undefined ? hourOf(to - 1) - 23 * HOUR_MS : Date.parse(query.from);
    if (from >= to) throw new BadRequestException(['from must be before to']);
    // An hour's leeway: "from = 90 days ago" is still 90 days when it reaches the server a moment later.
    if (to - from > MAX_USAGE_RANGE_DAYS * 24 * HOUR_MS + HOUR_MS)
      throw new BadRequestException([`from and to may be at most ${MAX_USAGE_RANGE_DAYS} days apart`]);
    return { from: new Date(hourOf(from)), to: new Date(to) };
  }

  /** One proxy's hours and routes; 404 for an unknown proxy. */
  async ofProxy(proxyId: string, range: UsageRange): Promise<ProxyUsageResponse> {
    await this.proxies.find(proxyId);
    await this.recorder.flush();
    const [hours, routes] = await Promise.all([
      this.hours.query(
        `SELECT hour, forwarded::bigint, refused::bigint, errors::bigint FROM usage_hour
          WHERE proxy_id = $1 AND hour >= $2 AND hour < $3`,
        [proxyId, range.from, range.to],
      ) as Promise<(CountsRow & { hour: Date })[]>,
      this.hours.query(
        `SELECT method, route, sum(count)::bigint AS count, max(last_seen) AS last_seen FROM usage_route
          WHERE proxy_id = $1 AND hour >= $2 AND hour < $3
          GROUP BY method, route ORDER BY count DESC, method, route LIMIT ${MAX_USAGE_ROUTES}`,
        [proxyId, range.from, range.to],
      ) as Promise<{ method: string; route: string; count: string; last_seen: Date }[]>,
    ]);
    return {
      buckets: buckets(range, hours),
      routes: routes.map(
        (row): RouteUsage => ({
          method: row.method,
          route: row.route,
          count: Number(row.count),
          lastSeen: row.last_seen.toISOString(),
        }),
      ),
    };
  }

  /**
   * The last call the proxy's stored usage holds per method and route shape (`routeShape`), over the
   * whole retention period. Reads what is stored: flush first (`UsageRecorder.flush`) for this replica's
   * latest calls. One query, no lock: safe inside another write's transaction.
   */
  async lastSeenByRoute(proxyId: string): Promise<Map<string, Date>> {
    const rows = (await this.hours.query(
      `SELECT method, route, max(last_seen) AS last_seen FROM usage_route WHERE proxy_id = $1 GROUP BY method, route`,
      [proxyId],
    )) as { method: string; route: string; last_seen: Date }[];
    const lastSeen = new Map<string, Date>();
    for (const row of rows) {
      const key = `${row.method} ${routeShape(row.route)}`;
      const known = lastSeen.get(key);
      if (!known || known < row.last_seen) lastSeen.set(key, row.last_seen);
    }
    return lastSeen;
  }

  /** Every proxy's hours together, and the totals per app and per service. */
  async overview(range: UsageRange): Promise<UsageOverviewResponse> {
    await this.recorder.flush();
    const where = 'WHERE hour >= $1 AND hour < $2';
    const [hours, byApp, byService] = await Promise.all([
      this.hours.query(`SELECT hour, ${SUMS} FROM usage_hour ${where} GROUP BY hour`, [
        range.from,
        range.to,
      ]) as Promise<(CountsRow & { hour: Date })[]>,
      this.hours.query(`SELECT app_id AS id, ${SUMS} FROM usage_hour ${where} GROUP BY app_id`, [
        range.from,
        range.to,
      ]) as Promise<(CountsRow & { id: string })[]>,
      this.hours.query(`SELECT service_id AS id, ${SUMS} FROM usage_hour ${where} GROUP BY service_id`, [
        range.from,
        range.to,
      ]) as Promise<(CountsRow & { id: string })[]>,
    ]);
    const [apps, services] = await Promise.all([
      this.apps.byIds(byApp.map((row) => row.id)),
      this.services.byIds(byService.map((row) => row.id)),
    ]);
    // An app or service deleted since the sums were read is left out.
    const appTotals = byApp.flatMap((row): AppUsage[] => {
      const app = apps.get(row.id);
      return app ? [{ appId: app.id, name: app.name, slug: app.slug, ...counts(row) }] : [];
    });
    const serviceTotals = byService.flatMap((row): ServiceUsage[] => {
      const service = services.get(row.id);
      return service ? [{ serviceId: service.id, name: service.name, type: service.type, ...counts(row) }] : [];
    });
    return { buckets: buckets(range, hours), apps: byCalls(appTotals), services: byCalls(serviceTotals) };
  }

  /**
   * The period's calls refused with 401, per app (`appId` null: slugs no app has), most first; only
   * `appId`'s with one. The last call's address and User-Agent are those of the latest hour's row.
   */
  async unauthorized(range: UsageRange, appId?: string): Promise<UnauthorizedCallsResponse> {
    await this.recorder.flush();
    const rows = (await this.hours.query(
      `SELECT app_id, sum(count)::bigint AS count, max(last_seen) AS last_seen,
              (array_agg(last_address ORDER BY last_seen DESC))[1] AS last_address,
              (array_agg(last_user_agent ORDER BY last_seen DESC))[1] AS last_user_agent
         FROM unauthorized_usage
        WHERE hour >= $1 AND hour < $2 ${appId === undefined ? '' : 'AND app_id = $3'}
        GROUP BY app_id`,
      appId === undefined ? [range.from, range.to] : [range.from, range.to, appId],
    )) as {
      app_id: string | null;
      count: string;
      last_seen: Date;
      last_address: string | null;
      last_user_agent: string | null;
    }[];
    const apps = await this.apps.byIds(rows.flatMap((row) => (row.app_id === null ? [] : [row.app_id])));
    // An app deleted since the sums were read is left out.
    const items = rows.flatMap((row): UnauthorizedCalls[] => {
      const app = row.app_id === null ? null : apps.get(row.app_id);
      if (app === undefined) return [];
      return [
        {
          appId: app?.id ?? null,
          appName: app?.name ?? null,
          slug: app?.slug ?? null,
          count: Number(row.count),
          lastSeen: row.last_seen.toISOString(),
          lastAddress: row.last_address,
          lastUserAgent: row.last_user_agent,
        },
      ];
    });
    items.sort(
      (a, b) =>
        b.count - a.count ||
        (a.appName ?? '\uffff').localeCompare(b.appName ?? '\uffff') ||
        a.lastSeen.localeCompare(b.lastSeen),
    );
    return { from: range.from.toISOString(), to: range.to.toISOString(), items };
  }
}

/** Every hour of the range, in order, with zeros where nothing was counted. */
function buckets(range: UsageRange, rows: (CountsRow & { hour: Date })[]): UsageBucket[] {
  const byHour = new Map(rows.map((row) => [row.hour.getTime(), counts(row)]));
  const result: UsageBucket[] = [];
  for (let hour = range.from.getTime(); hour < range.to.getTime(); hour += HOUR_MS) {
    const counted = byHour.get(hour) ?? { forwarded: 0, refused: 0, errors: 0 };
    result.push({ start: new Date(hour).toISOString(), ...counted });
  }
  return result;
}

/** Most calls first, then by name. */
function byCalls<T extends UsageCounts & { name: string }>(totals: T[]): T[] {
  return totals.sort((a, b) => b.forwarded + b.refused - (a.forwarded + a.refused) || a.name.localeCompare(b.name));
}
