import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, Logger, NotFoundException, OnModuleDestroy, OnModuleInit } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import {
  canonicalizePath,
  compileAllowlist,
  effectiveAllowlist,
  HttpMethod,
  resolveProxyRoute,
  routeShape,
} from '@arrbiter/server/catalog';
import { Change, ChangeBus } from '@arrbiter/server/database';
import { ChangesService, SYSTEM_ACTOR } from '@arrbiter/server/history';
import { KnownClientsService } from '@arrbiter/server/known-clients';
import { ProxyAllowlistService } from '@arrbiter/server/proxies';
import { FindOptionsWhere, In, Repository } from 'typeorm';
import { AccessWarningEntity } from './entities/access-warning.entity';
import { WarningRecorder } from './warning-recorder';

/** The topics after which an allowlist may grant more: a proxy's overrides, an app's template, templates, an import. */
const GRANTING_TOPICS = new Set<Change['topic']>(['proxies', 'apps', 'templates', 'all']);

/**
 * Resolves the open warnings a grant now covers, whatever made the grant (a fit, a manual config save,
 * a restore, an import, a template sync, a connect): after each change of this process that can widen
 * an allowlist (`ChangeBus`, the event the gateway rebuilds its state on), the open warnings of the
 * proxies it touches are decided again exactly as the proxy decides a call (the sample's canonical
 * path, the catalog and the allowlist's own paths, the compiled allowlist); those it now lets through
 * become `granted`, each with a `warning.resolved` entry in recent changes. Admin writes only: never on
 * a proxied call's path. Changes from other replicas are left to the replica that made them.
 */
@Injectable()
export class WarningResolver implements OnModuleInit, OnModuleDestroy {
  private readonly logger = new Logger(WarningResolver.name);
  private unsubscribe?: () => void;

  constructor(
    @InjectRepository(AccessWarningEntity) private readonly warningRepository: Repository<AccessWarningEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly changes: ChangeBus,
    private readonly allowlists: ProxyAllowlistService,
    private readonly knownClients: KnownClientsService,
    private readonly audit: ChangesService,
    private readonly recorder: WarningRecorder,
  ) {}

  onModuleInit(): void {
    this.unsubscribe = this.changes.subscribe((change) => this.onChange(change));
  }

  onModuleDestroy(): void {
    this.unsubscribe?.();
  }

  private async onChange(change: Change): Promise<void> {
    if (change.origin !== undefined || !GRANTING_TOPICS.has(change.topic)) return;
    const scope: FindOptionsWhere<AccessWarningEntity> =
      change.id === undefined ? {} : change.topic === 'proxies' ? { proxyId: change.id } : { appId: change.id };
    try {
      // Calls refused before the grant and not written yet are written first, so they are resolved too.
      await this.recorder.flush();
      await this.resolveCovered(scope);
    } catch (error) {
      // The grant itself is written: a warning left open is resolved by the next change, or by hand.
      this.logger.warn(`Open warnings not resolved after a ${change.topic} change: ${(error as Error).message}`);
    }
  }

  /** Resolves the open warnings in `scope` that the proxies' allowlists now let through; answers how many. */
  async resolveCovered(scope: FindOptionsWhere<AccessWarningEntity> = {}): Promise<number> {
    const open = await this.warningRepository.find({ where: { ...scope, status: 'open', otherPaths: false } });
    const byProxy = new Map<string, AccessWarningEntity[]>();
    for (const warning of open) byProxy.set(warning.proxyId, [...(byProxy.get(warning.proxyId) ?? []), warning]);
    const covered: AccessWarningEntity[] = [];
    for (const [proxyId, warnings] of byProxy) covered.push(...(await this.coveredOf(proxyId, warnings)));
    if (covered.length === 0) return 0;
    await this.txHost.withTransaction(async () => {
      const repository = this.txHost.tx.withRepository(this.warningRepository);
      // Only those still open: a warning granted or dismissed meanwhile keeps its own history.
      const updated = (await repository
        .createQueryBuilder()
        .update()
        .set({ status: 'granted' })
        .where({ id: In(covered.map((w) => w.id)), status: 'open' })
        .returning('id')
        .execute()) as { raw: { id: string }[] };
      const resolved = new Set(updated.raw.map((row) => row.id));
      for (const warning of covered.filter((w) => resolved.has(w.id))) {
        const call = `${warning.method.toUpperCase()} ${warning.route ?? warning.path}`;
        await this.audit.record({
          actor: SYSTEM_ACTOR,
          action: 'warning.resolved',
          objectType: 'warning',
          objectId: warning.id,
          objectName: call,
          appId: warning.appId,
          summary: `Warning resolved: ${call} is granted by the proxy's allowlist now (${warning.count} refused before)`,
        });
      }
    });
    return covered.length;
  }

  /** The warnings the proxy's effective allowlist lets through now, decided as the gateway decides a call. */
  private async coveredOf(proxyId: string, warnings: AccessWarningEntity[]): Promise<AccessWarningEntity[]> {
    let context;
    try {
      context = await this.allowlists.allowlistContext(proxyId);
    } catch (error) {
      if (error instanceof NotFoundException) return []; // deleted meanwhile: its warnings went with it
      throw error;
    }
    const catalog = await this.knownClients.catalogOf(context.serviceType, context.apiVersions);
    const { allowlist, extraRoutes } = compileAllowlist(
      catalog,
      effectiveAllowlist(context.template, context.overrides),
    );
    return warnings.filter((warning) => {
      const method = warning.method as HttpMethod;
      const canonical = warning.path.endsWith('…') ? undefined : canonicalizePath(warning.path);
      if (canonical?.ok) {
        const route = resolveProxyRoute(catalog, extraRoutes, canonical.segments, method);
        return route !== undefined && allowlist.allows(route.shape, method);
      }
      return warning.route !== null && allowlist.allows(routeShape(warning.route), method);
    });
  }
}
