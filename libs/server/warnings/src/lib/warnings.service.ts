import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type {
  BulkWarningsRequest,
  BulkWarningsResponse,
  Grant,
  LearnedGrantResponse,
  Page,
  RevisionDto,
  RouteRiskDto,
  WarningDto,
  WarningGrantRequest,
  WarningGrantResponse,
  WarningSort,
} from '@arrbiter/contracts';
import { CatalogRoute, CatalogService } from '@arrbiter/server/catalog';
import { ChangeBus } from '@arrbiter/server/database';
import { ChangesService } from '@arrbiter/server/history';
import { DEFAULT_PAGE_SIZE } from '@arrbiter/server/http';
import { KnownClientsService } from '@arrbiter/server/known-clients';
import { routeRisk } from '@arrbiter/server/permissions';
import { ProxiesService, ProxyAllowlistService } from '@arrbiter/server/proxies';
import { isRoutePath } from '@arrbiter/shared/allowlist-rules';
import { In, Repository } from 'typeorm';
import { ListWarningsDto, WARNING_SORTS } from './dto/list-warnings.dto';
import { AccessWarningEntity } from './entities/access-warning.entity';
import { isGrantableShape, isWholeSample } from './unknown-path-shape';

/** A warning as the API answers it, but for who makes the call (`WarningsService.withCallers`). */
export function toWarningDto(w: AccessWarningEntity): Omit<WarningDto, 'knownCallers' | 'risk'> {
  return {
    id: w.id,
    proxyId: w.proxyId,
    appId: w.appId,
    method: w.method,
    path: w.path,
    route: w.route,
    shape: shapeOf(w),
    otherPaths: w.otherPaths,
    count: w.count,
    firstSeen: w.firstSeen.toISOString(),
    lastSeen: w.lastSeen.toISOString(),
    status: w.status,
  };
}

@Injectable()
export class WarningsService {
  constructor(
    @InjectRepository(AccessWarningEntity) private readonly warningRepository: Repository<AccessWarningEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly proxies: ProxiesService,
    private readonly allowlists: ProxyAllowlistService,
    private readonly audit: ChangesService,
    private readonly knownClients: KnownClientsService,
    private readonly catalog: CatalogService,
    private readonly changes: ChangeBus,
  ) {}

  /** The `access_warning` repository, inside the caller's transaction when there is one. */
  private get warnings(): Repository<AccessWarningEntity> {
    return this.txHost.tx.withRepository(this.warningRepository);
  }

  /**
   * Filtered, searched and sorted (`sort`, default last seen; `order`, default newest first), a page
   * at a time: keyset paging on (sort key, id), the cursor naming its sort and order.
   */
  async list(query: ListWarningsDto): Promise<Page<WarningDto>> {
    const sort = query.sort ?? 'lastSeen';
    const order = query.order ?? 'desc';
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = decodeWarningCursor(query.cursor, sort, order);
    const { column, cast, text } = SORT_KEYS[sort];
    const qb = this.warnings.createQueryBuilder('w');
    if (sort === 'app') qb.innerJoin('app', 'a', 'a.id = w.app_id');
    if (query.proxyId) qb.andWhere('w.proxy_id = :proxyId', { proxyId: query.proxyId });
    if (query.appId) qb.andWhere('w.app_id = :appId', { appId: query.appId });
    if (query.status) qb.andWhere('w.status = :status', { status: query.status });
    if (query.q) {
      // The route, the shape and the sample path: a folded row is found by any path it was seen with last.
      const pattern = `%${query.q.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
      qb.andWhere('(lower(w.path) LIKE :pattern OR lower(w.route_key) LIKE :pattern OR lower(w.route) LIKE :pattern)', {
        pattern,
      });
    }
    if (cursor)
      qb.andWhere(
        `(${column}, w.id) ${order === 'desc' ? '<' : '>'} (CAST(:cursorKey AS ${cast}), CAST(:cursorId AS uuid))`,
        {
          cursorKey: cursor.key,
          cursorId: cursor.id,
        },
      );
    const direction = order === 'desc' ? 'DESC' : 'ASC';
    qb.addSelect(text, 'sort_key')
      .orderBy(column, direction)
      .addOrderBy('w.id', direction)
      .limit(limit + 1);
    const { entities, raw } = await qb.getRawAndEntities<{ w_id: string; sort_key: string }>();
    const keys = new Map(raw.map((r) => [r.w_id, r.sort_key]));
    const rows = entities.slice(0, limit);
    const last = rows.at(-1);
    return {
      items: await this.answer(rows.map(toWarningDto)),
      nextCursor:
        entities.length > limit && last
          ? encodeWarningCursor({ sort, order, key: keys.get(last.id) ?? '', id: last.id })
          : null,
    };
  }

  /**
   * The warnings as the API answers them: with the known clients that make each call (same service
   * type, method and route, or exact path without a route) and what granting it opens (`risk`). The
   * proxies' service types in two queries for the whole list, the callers from the known clients'
   * in-memory index, the catalog routes from the catalog's. A rate-limited row stands for every path
   * of a method (the first one's path is kept), so it names no caller.
   */
  private async answer(warnings: Omit<WarningDto, 'knownCallers' | 'risk'>[]): Promise<WarningDto[]> {
    if (warnings.length === 0) return [];
    const [types, callers] = await Promise.all([
      this.proxies.serviceTypes(warnings.map((w) => w.proxyId)),
      this.knownClients.callers(),
      this.catalog.ready(),
    ]);
    const catalogs = new Map<string, Map<string, CatalogRoute>>();
    const catalogOf = (type: string) => {
      let routes = catalogs.get(type);
      if (!routes) {
        routes = new Map(this.catalog.routesOfType(type).map((r) => [r.path, r]));
        catalogs.set(type, routes);
      }
      return routes;
    };
    return warnings.map((w) => {
      const type = types.get(w.proxyId);
      const named = type !== undefined && w.status !== 'rate-limited';
      return {
        ...w,
        knownCallers: named ? callers.of(type, w.method, w.route, w.path) : [],
        risk: w.otherPaths ? null : riskOf(type ?? '', w, type === undefined ? undefined : catalogOf(type)),
      };
    });
  }

  /**
   * Grants the warning's method on its resolved route (when no route matched: its sample's exact path,
   * or its shape when `scope` is `shape`), on top of the proxy's effective list for that path, as a
   * `warning-grant` revision; the warning becomes `granted` in the same transaction. The "other paths"
   * row and rate-limited rows are never granted (409).
   */
  async grant(id: string, actor: string, request: WarningGrantRequest = {}): Promise<WarningGrantResponse> {
    const warning = await this.find(id);
    if (warning.otherPaths)
      throw new ConflictException(
        "The other-paths row counts the calls refused past this proxy's 200 warnings and cannot be granted: dismiss it, or grant what the client needs in the proxy's allowlist",
      );
    if (warning.status === 'granted') throw new ConflictException('This warning has already been granted');
    if (warning.status === 'rate-limited')
      throw new ConflictException("Calls refused by the proxy's rate limit are not granted: raise or lift the limit");
    const grant = grantOf(warning, request.scope ?? 'path');
    if (typeof grant === 'string') throw new ConflictException(grant);
    const revision = await this.allowlists.grant(warning.proxyId, [grant], actor, async () => {
      await this.warnings.update({ id }, { status: 'granted' });
    });
    const [dto] = await this.answer([toWarningDto({ ...warning, status: 'granted' })]);
    return { warning: dto, revision };
  }

  async dismiss(id: string, actor: string): Promise<WarningDto> {
    const warning = await this.find(id);
    await this.txHost.withTransaction(async () => {
      await this.warnings.update({ id }, { status: 'dismissed' });
      await this.recordDismissed(warning, actor);
    });
    const [dto] = await this.answer([toWarningDto({ ...warning, status: 'dismissed' })]);
    return dto;
  }

  /** Grants every route the proxy learned, in one `warning-grant` revision. */
  async grantLearned(proxyId: string, actor: string): Promise<LearnedGrantResponse> {
    await this.proxies.find(proxyId);
    const found = await this.warnings.find({
      where: { proxyId, status: 'learned', otherPaths: false },
      order: { lastSeen: 'ASC' },
    });
    // A sample too long to be a path (cut) stays learned: its shape can be granted on its own.
    const learned = found.filter((w) => typeof grantOf(w, 'path') !== 'string');
    if (learned.length === 0) return { revision: null, granted: [] };
    const grants = learned.map((w) => grantOf(w, 'path') as Grant);
    const revision = await this.allowlists.grant(proxyId, grants, actor, async () => {
      await this.warnings.update({ id: In(learned.map((w) => w.id)) }, { status: 'granted' });
    });
    return { revision, granted: grants };
  }

  /**
   * Grants up to 100 open warnings: each proxy's grants as one `warning-grant` revision (under its row
   * lock, through the single grant's code path), all in one transaction. Sensitive rows are left out
   * unless `confirmSensitive`; the other-paths row, rate-limited rows and rows that are not open always
   * are, each with its reason.
   */
  async grantMany(request: BulkWarningsRequest, actor: string): Promise<BulkWarningsResponse> {
    const found = await this.findMany(request.ids);
    const skipped: BulkWarningsResponse['skipped'] = [];
    const risks = new Map((await this.answer(found.map(toWarningDto))).map((w) => [w.id, w.risk]));
    const byProxy = new Map<string, { warning: AccessWarningEntity; grant: Grant }[]>();
    for (const id of request.ids) {
      const warning = found.find((w) => w.id === id);
      const reason = warning
        ? skipReason(warning, risks.get(id) ?? null, request.confirmSensitive === true)
        : 'not found';
      if (reason !== null || !warning) {
        skipped.push({ id, reason: reason ?? 'not found' });
        continue;
      }
      const grant = grantOf(warning, 'path');
      if (typeof grant === 'string') {
        skipped.push({ id, reason: grant });
        continue;
      }
      const list = byProxy.get(warning.proxyId) ?? [];
      list.push({ warning, grant });
      byProxy.set(warning.proxyId, list);
    }
    // Proxies locked in id order: two bulk grants never wait on each other's locks.
    const proxyIds = [...byProxy.keys()].sort();
    const revisions = await this.txHost.withTransaction(async () => {
      const written: RevisionDto[] = [];
      for (const proxyId of proxyIds) {
        const items = byProxy.get(proxyId) ?? [];
        const ids = items.map((i) => i.warning.id);
        written.push(
          await this.allowlists.grantInTransaction(
            proxyId,
            items.map((i) => i.grant),
            actor,
            async () => {
              await this.warnings.update({ id: In(ids) }, { status: 'granted' });
            },
          ),
        );
      }
      return written;
    });
    for (const proxyId of proxyIds) await this.changes.publish('proxies', proxyId);
    const done = new Set(proxyIds.flatMap((p) => (byProxy.get(p) ?? []).map((i) => i.warning.id)));
    return { done: request.ids.filter((id) => done.has(id)), skipped, revisions };
  }

  /** Dismisses up to 100 warnings in one transaction, each in recent changes as the single dismiss is. */
  async dismissMany(request: BulkWarningsRequest, actor: string): Promise<BulkWarningsResponse> {
    const found = new Map((await this.findMany(request.ids)).map((w) => [w.id, w]));
    const skipped: BulkWarningsResponse['skipped'] = [];
    const done: AccessWarningEntity[] = [];
    for (const id of request.ids) {
      const warning = found.get(id);
      if (!warning) skipped.push({ id, reason: 'not found' });
      else if (warning.status === 'dismissed') skipped.push({ id, reason: 'already dismissed' });
      else done.push(warning);
    }
    if (done.length > 0)
      await this.txHost.withTransaction(async () => {
        await this.warnings.update({ id: In(done.map((w) => w.id)) }, { status: 'dismissed' });
        for (const warning of done) await this.recordDismissed(warning, actor);
      });
    return { done: done.map((w) => w.id), skipped, revisions: [] };
  }

  private async recordDismissed(warning: AccessWarningEntity, actor: string): Promise<void> {
    await this.audit.record({
      actor,
      action: 'warning.dismissed',
      objectType: 'warning',
      objectId: warning.id,
      objectName: `${warning.method.toUpperCase()} ${warning.route ?? warning.path}`,
      appId: warning.appId,
      summary: `Warning dismissed: ${warning.method.toUpperCase()} ${warning.path} (${warning.count} refused)`,
    });
  }

  private findMany(ids: readonly string[]): Promise<AccessWarningEntity[]> {
    return this.warnings.findBy({ id: In([...ids]) });
  }

  private async find(id: string): Promise<AccessWarningEntity> {
    const warning = await this.warnings.findOneBy({ id });
    if (!warning) throw new NotFoundException('No such warning');
    return warning;
  }
}

/**
 * The shape a warning of a path that matched no route is counted under (`unknownPathShape`); null
 * for a route's warning, a rate-limit row (`(rate limit)`) and the other-paths row.
 */
function shapeOf(w: AccessWarningEntity): string | null {
  return w.route === null && !w.otherPaths && w.routeKey.startsWith('/') ? w.routeKey : null;
}

/**
 * What granting a warning opens: its method on its resolved route; without one, on its sample's exact
 * path (`path`) or on its shape (`shape`). A string says why it cannot be granted that way.
 */
function grantOf(warning: AccessWarningEntity, scope: 'path' | 'shape'): Grant | string {
  if (warning.route !== null) return { path: warning.route, method: warning.method };
  if (scope === 'shape') {
    const shape = shapeOf(warning);
    if (shape === null || !isGrantableShape(shape) || !isRoutePath(shape))
      return 'This shape stands for paths deeper than its six segments and cannot be granted: grant the sample path, or edit the allowlist';
    return { path: shape, method: warning.method };
  }
  const path = warning.path;
  if (!isWholeSample(path) || !isRoutePath(path) || path.includes('{') || path.includes('}'))
    return 'The sample path is not a path that can be granted as it is (cut at 512 characters, or with braces): grant the shape, or edit the allowlist';
  return { path, method: warning.method };
}

/** Per sort: the SQL key (then the id) and the type its cursor value is read back as. */
const SORT_KEYS: Record<WarningSort, { column: string; cast: string; text: string }> = {
  lastSeen: { column: 'w.last_seen', cast: 'timestamptz', text: utcText('w.last_seen') },
  firstSeen: { column: 'w.first_seen', cast: 'timestamptz', text: utcText('w.first_seen') },
  count: { column: 'w.count', cast: 'integer', text: 'w.count::text' },
  app: { column: 'a.name', cast: 'text', text: 'a.name' },
};

/** A time in UTC to the microsecond, whatever the session's time zone and date style. */
function utcText(column: string): string {
  return `to_char(${column} AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"')`;
}

interface WarningCursor {
  sort: WarningSort;
  order: 'asc' | 'desc';
  /** The last row's sort key as text (`SORT_KEYS`' `text`). */
  key: string;
  id: string;
}

/** Opaque to clients: base64url of the sort, the order, the last row's sort key and its id. */
function encodeWarningCursor(cursor: WarningCursor): string {
  return Buffer.from(JSON.stringify([cursor.sort, cursor.order, cursor.key, cursor.id]), 'utf8').toString('base64url');
}

/** The cursor; 400 when it is not one this list returned for the same sort and order. */
function decodeWarningCursor(
  value: string | undefined,
  sort: WarningSort,
  order: 'asc' | 'desc',
): WarningCursor | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 4 ||
    !WARNING_SORTS.includes(parsed[0]) ||
    (parsed[1] !== 'asc' && parsed[1] !== 'desc') ||
    typeof parsed[2] !== 'string' ||
    typeof parsed[3] !== 'string' ||
    !/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/.test(parsed[3])
  )
    throw new BadRequestException('cursor is not a cursor this API returned');
  const [cursorSort, cursorOrder, key, id] = parsed as [WarningSort, 'asc' | 'desc', string, string];
  if (cursorSort !== sort || cursorOrder !== order)
    throw new BadRequestException(
      `cursor belongs to the list sorted by ${cursorSort} ${cursorOrder}, not ${sort} ${order}`,
    );
  const valid =
    sort === 'count'
      ? /^-?\d{1,10}$/.test(key)
      : sort === 'app'
        ? key.length <= 200
        : /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/.test(key);
  if (!valid) throw new BadRequestException('cursor is not a cursor this API returned');
  return { sort, order, key, id };
}

/**
 * What granting the warning opens (`routeRisk`): of its route (with the catalog route's operations,
 * for the schema rule), else of its shape, else of its sample path.
 */
function riskOf(
  serviceType: string,
  w: Omit<WarningDto, 'knownCallers' | 'risk'>,
  catalog: Map<string, CatalogRoute> | undefined,
): RouteRiskDto {
  const catalogRoute = w.route === null ? undefined : catalog?.get(w.route);
  const target = catalogRoute ?? w.route ?? w.shape ?? w.path;
  return { ...routeRisk(serviceType, undefined, w.method, target) };
}

/** Why a bulk grant leaves this warning as it is; null when it grants it. */
function skipReason(warning: AccessWarningEntity, risk: RouteRiskDto | null, confirmSensitive: boolean): string | null {
  if (warning.otherPaths) return 'other paths: this row cannot be granted';
  if (warning.status === 'rate-limited') return "rate-limited: raise or lift the proxy's rate limit instead";
  if (warning.status === 'granted') return 'already granted';
  if (warning.status !== 'open') return `not open: ${warning.status}`;
  if (risk?.sensitive && !confirmSensitive) return `sensitive: ${risk.reason}`;
  return null;
}
