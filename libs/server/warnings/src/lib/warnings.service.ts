import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { Grant, LearnedGrantResponse, Page, WarningDto, WarningGrantResponse } from '@arrbiter/contracts';
import { ChangesService } from '@arrbiter/server/history';
import { keysetPage } from '@arrbiter/server/http';
import { KnownClientsService } from '@arrbiter/server/known-clients';
import { ProxiesService, ProxyAllowlistService } from '@arrbiter/server/proxies';
import { In, Repository } from 'typeorm';
import { ListWarningsDto } from './dto/list-warnings.dto';
import { AccessWarningEntity } from './entities/access-warning.entity';

/** A warning as the API answers it, but for who makes the call (`WarningsService.withCallers`). */
export function toWarningDto(w: AccessWarningEntity): Omit<WarningDto, 'knownCallers'> {
  return {
    id: w.id,
    proxyId: w.proxyId,
    appId: w.appId,
    method: w.method,
    path: w.path,
    route: w.route,
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
   * Grants the warning's method on its resolved route (its exact path when no route matched), on top
   * of the proxy's effective list for that path, as a `warning-grant` revision; the warning becomes
   * `granted` in the same transaction.
   */
  async grant(id: string, actor: string): Promise<WarningGrantResponse> {
    const warning = await this.find(id);
    if (warning.status === 'granted') throw new ConflictException('This warning has already been granted');
    if (warning.status === 'rate-limited')
      throw new ConflictException("Calls refused by the proxy's rate limit are not granted: raise or lift the limit");
    const revision = await this.allowlists.grant(warning.proxyId, [grantOf(warning)], actor, async () => {
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
    const learned = await this.warnings.find({ where: { proxyId, status: 'learned' }, order: { lastSeen: 'ASC' } });
    if (learned.length === 0) return { revision: null, granted: [] };
    const grants = learned.map(grantOf);
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

/** What granting a warning opens: its method on its resolved route, or on its exact path without one. */
function grantOf(warning: AccessWarningEntity): Grant {
  return { path: warning.route ?? warning.path, method: warning.method };
}
