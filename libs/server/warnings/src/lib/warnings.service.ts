import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type {
  Grant,
  LearnedGrantResponse,
  Page,
  WarningDto,
  WarningGrantRequest,
  WarningGrantResponse,
} from '@arrbiter/contracts';
import { ChangesService } from '@arrbiter/server/history';
import { keysetPage } from '@arrbiter/server/http';
import { KnownClientsService } from '@arrbiter/server/known-clients';
import { ProxiesService, ProxyAllowlistService } from '@arrbiter/server/proxies';
import { isRoutePath } from '@arrbiter/shared/allowlist-rules';
import { In, Repository } from 'typeorm';
import { ListWarningsDto } from './dto/list-warnings.dto';
import { AccessWarningEntity } from './entities/access-warning.entity';
import { isGrantableShape, isWholeSample } from './unknown-path-shape';

/** A warning as the API answers it, but for who makes the call (`WarningsService.withCallers`). */
export function toWarningDto(w: AccessWarningEntity): Omit<WarningDto, 'knownCallers'> {
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
  ) {}

  /** The `access_warning` repository, inside the caller's transaction when there is one. */
  private get warnings(): Repository<AccessWarningEntity> {
    return this.txHost.tx.withRepository(this.warningRepository);
  }

  /** Newest first (by last seen), filtered, a page at a time. */
  async list(query: ListWarningsDto): Promise<Page<WarningDto>> {
    const qb = this.warnings.createQueryBuilder('w');
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
    const page = await keysetPage(
      qb,
      { column: 'w.last_seen', idColumn: 'w.id', at: (w) => w.lastSeen },
      query,
      toWarningDto,
    );
    return { ...page, items: await this.withCallers(page.items) };
  }

  /**
   * The warnings with the known clients that make each call (same service type, method and route, or
   * exact path without a route): the proxies' service types in two queries for the whole list, the
   * callers from the known clients' in-memory index. A rate-limited row stands for every path of a
   * method (the first one's path is kept), so it names none.
   */
  private async withCallers(warnings: Omit<WarningDto, 'knownCallers'>[]): Promise<WarningDto[]> {
    if (warnings.length === 0) return [];
    const [types, callers] = await Promise.all([
      this.proxies.serviceTypes(warnings.map((w) => w.proxyId)),
      this.knownClients.callers(),
    ]);
    return warnings.map((w) => {
      const type = types.get(w.proxyId);
      const named = type !== undefined && w.status !== 'rate-limited';
      return { ...w, knownCallers: named ? callers.of(type, w.method, w.route, w.path) : [] };
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
    const [dto] = await this.withCallers([toWarningDto({ ...warning, status: 'granted' })]);
    return { warning: dto, revision };
  }

  async dismiss(id: string, actor: string): Promise<WarningDto> {
    const warning = await this.find(id);
    await this.txHost.withTransaction(async () => {
      await this.warnings.update({ id }, { status: 'dismissed' });
      await this.audit.record({
        actor,
        action: 'warning.dismissed',
        objectType: 'warning',
        objectId: id,
        objectName: `${warning.method.toUpperCase()} ${warning.route ?? warning.path}`,
        appId: warning.appId,
        summary: `Warning dismissed: ${warning.method.toUpperCase()} ${warning.path} (${warning.count} refused)`,
      });
    });
    const [dto] = await this.withCallers([toWarningDto({ ...warning, status: 'dismissed' })]);
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
