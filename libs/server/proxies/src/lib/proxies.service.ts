import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { BadRequestException, ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type {
  AllowlistMap,
  AllowlistResponse,
  EndpointsResponse,
  Grant,
  Page,
  ProxyConnectionDto,
  ProxyDto,
  RevisionDiffResponse,
  RevisionDto,
  RevisionKind,
  RotateKeyResponse,
} from '@arrbiter/contracts';
import { AppRow, AppsService } from '@arrbiter/server/apps';
import { CatalogService } from '@arrbiter/server/catalog';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { generateProxyKey, keyDigest, SecretBox } from '@arrbiter/server/crypto';
import { ChangeBus } from '@arrbiter/server/database';
import { ChangesService, RevisionRow, RevisionsService, SYSTEM_ACTOR, toRevisionDto } from '@arrbiter/server/history';
import { isUniqueViolation, PageQueryDto } from '@arrbiter/server/http';
import { ServiceRow, ServicesService } from '@arrbiter/server/services';
import { TemplatesService } from '@arrbiter/server/templates';
import { In, LessThanOrEqual, Repository } from 'typeorm';
import { CreateProxyDto, ProxyConfigDto } from './dto/proxy.dto';
import { ProxyEntity } from './entities/proxy.entity';
import { buildEndpoints, catalogTags, EndpointQuery } from './endpoints';
import {
  allowlistOf,
  checkedOverrides,
  describeSummary,
  effectiveAllowlist,
  learningDeadlineProblem,
  overridesWithGrants,
  restoreDiff,
  summarize,
} from '@arrbiter/server/permissions';

/** The purpose a proxy key is encrypted for (bound into the ciphertext). */
export const PROXY_KEY_PURPOSE = 'proxy-key';

/** A proxy as the other domains read it (the entity class stays inside this lib). */
export type ProxyRow = Omit<ProxyEntity, 'app' | 'service'>;

/** What the proxy route's in-memory state needs of a proxy (no key ciphertext, no timestamps). */
export type ProxyHotPathRow = Pick<
  ProxyEntity,
  'id' | 'appId' | 'serviceId' | 'active' | 'keyDigest' | 'overrides' | 'learningUntil'
>;

export function toProxyDto(proxy: ProxyEntity): ProxyDto {
  return {
    id: proxy.id,
    appId: proxy.appId,
    serviceId: proxy.serviceId,
    active: proxy.active,
    learningUntil: proxy.learningUntil?.toISOString() ?? null,
    createdAt: proxy.createdAt.toISOString(),
    updatedAt: proxy.updatedAt.toISOString(),
  };
}

/** A proxy with what its allowlist is computed from (read in the caller's transaction, when there is one). */
export interface ProxyContext {
  proxy: ProxyEntity;
  app: AppRow;
  service: ServiceRow;
  /** The app's template block for the service's type ({} without a template). */
  template: AllowlistMap;
}

/** One change of a proxy's overrides or active state, recorded as a revision. */
export interface Revise {
  kind: RevisionKind;
  actor: string;
  /** Audit action, e.g. `proxy.config-saved`. */
  action: string;
  /** Sets the new overrides and active state on `context.proxy`; restores return the restored revision's id. */
  apply: (context: ProxyContext) => Promise<{ restoredFrom: string }> | void;
  /** More writes in the same transaction (a warning's status), through the writer's own service. */
  alongside?: (context: ProxyContext) => Promise<void>;
}

/**
 * Proxies: keys, state, overrides and learning mode. Every write runs in one `TransactionHost`
 * transaction with its revision and its recent change.
 */
@Injectable()
export class ProxiesService {
  constructor(
    @InjectRepository(ProxyEntity) private readonly proxyRepository: Repository<ProxyEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly apps: AppsService,
    private readonly templates: TemplatesService,
    private readonly services: ServicesService,
    private readonly catalog: CatalogService,
    private readonly revisions: RevisionsService,
    private readonly audit: ChangesService,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly clock: Clock,
    private readonly changes: ChangeBus,
  ) {}

  /** The `proxy` repository, inside the caller's transaction when there is one. */
  private get proxies(): Repository<ProxyEntity> {
    return this.txHost.tx.withRepository(this.proxyRepository);
  }

  async listForApp(appId: string): Promise<ProxyDto[]> {
    await this.apps.find(appId);
    return (await this.proxies.find({ where: { appId }, order: { createdAt: 'ASC' } })).map(toProxyDto);
  }

  /** Gives an app access to a service with a new key (one proxy per service per app). */
  async create(appId: string, dto: CreateProxyDto, actor: string): Promise<ProxyConnectionDto> {
    const key = generateProxyKey();
    const { proxy, app } = await this.txHost.withTransaction(async () => {
      const app = await this.findApp(appId);
      const service = await this.services.find(dto.serviceId);
      const repository = this.proxies;
      let proxy: ProxyEntity;
      try {
        proxy = await repository.save(
          repository.create({
            appId,
            serviceId: dto.serviceId,
            active: true,
            keyDigest: keyDigest(key),
            keyCiphertext: this.secrets.encrypt(key, PROXY_KEY_PURPOSE),
            overrides: {},
            learningUntil: null,
          }),
        );
      } catch (error) {
        if (isUniqueViolation(error))
          throw new ConflictException(`The app "${app.name}" already has a proxy for this service`);
        throw error;
      }
      const template = await this.templates.block(app.templateId, service.type);
      // The first revision: what the proxy started with, so that it can be restored later.
      const summary = summarize(
        'manual',
        {
          effectiveBefore: {},
          effectiveAfter: effectiveAllowlist(template, {}),
          activeBefore: true,
          activeAfter: true,
        },
        'Proxy created',
      );
      await this.revisions.record({
        proxyId: proxy.id,
        kind: 'manual',
        overrides: {},
        active: true,
        author: actor,
        summary,
      });
      await this.record(actor, 'proxy.created', { proxy, app, service }, summary.text);
      return { proxy, app };
    });
    await this.changes.publish('proxies', proxy.id);
    return this.connection(proxy, app, key);
  }

  /** Connection details: the key and the Proxy URL a client needs. */
  async get(id: string): Promise<ProxyConnectionDto> {
    const proxy = await this.find(id);
    return this.connection(
      proxy,
      await this.apps.find(proxy.appId),
      this.secrets.decrypt(proxy.keyCiphertext, PROXY_KEY_PURPOSE),
    );
  }

  async setActive(id: string, active: boolean, actor: string): Promise<ProxyDto> {
    const { context } = await this.revise(id, {
      kind: 'manual',
      actor,
      action: active ? 'proxy.activated' : 'proxy.deactivated',
      apply: ({ proxy }) => {
        proxy.active = active;
      },
    });
    return toProxyDto(context.proxy);
  }

  /** A new key; the old one stops working before this returns. */
  async rotateKey(id: string, actor: string): Promise<RotateKeyResponse> {
    const key = generateProxyKey();
    await this.txHost.withTransaction(async () => {
      const context = await this.context(id);
      await this.proxies.update(
        { id },
        { keyDigest: keyDigest(key), keyCiphertext: this.secrets.encrypt(key, PROXY_KEY_PURPOSE) },
      );
      await this.record(actor, 'proxy.key-rotated', context, 'Key rotated: the old key no longer works');
    });
    await this.changes.publish('proxies', id);
    return { key };
  }

  async remove(id: string, actor: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const context = await this.context(id);
      await this.proxies.delete({ id });
      await this.record(actor, 'proxy.deleted', context, 'Proxy deleted: its key no longer works');
    });
    await this.changes.publish('proxies', id);
  }

  /** Saves the overrides and the active state together (a `manual` revision); the next request sees them. */
  async saveConfig(id: string, dto: ProxyConfigDto, actor: string): Promise<AllowlistResponse> {
    const overrides = checkedOverrides(dto.overrides);
    const { context } = await this.revise(id, {
      kind: 'manual',
      actor,
      action: 'proxy.config-saved',
      apply: ({ proxy }) => {
        proxy.overrides = overrides;
        proxy.active = dto.active;
      },
    });
    return this.allowlistOf(context);
  }

  async allowlist(id: string): Promise<AllowlistResponse> {
    return this.allowlistOf(await this.context(id));
  }

  /** The permission catalog: per catalog route and method, template / override / effective; then unknown paths. */
  async endpoints(id: string, query: EndpointQuery): Promise<EndpointsResponse> {
    const { proxy, app, service, template } = await this.context(id);
    await this.catalog.ready();
    const routes = this.catalog.routesFor(service.type, service.apiVersions);
    return {
      serviceType: service.type,
      templateId: app.templateId,
      tags: catalogTags(routes),
      items: buildEndpoints(routes, template, proxy.overrides, query),
    };
  }

  /**
   * Adds grants on top of the effective allowlist (nothing the template grants for those paths is
   * lost), as one revision of the given kind.
   */
  async grant(
    id: string,
    grants: readonly Grant[],
    actor: string,
    alongside?: Revise['alongside'],
  ): Promise<RevisionDto> {
    const { revision } = await this.revise(id, {
      kind: 'warning-grant',
      actor,
      action: 'proxy.granted-from-warnings',
      apply: ({ proxy, template }) => {
        proxy.overrides = overridesWithGrants(template, proxy.overrides, grants);
      },
      alongside,
    });
    return toRevisionDto(revision);
  }

  async listRevisions(id: string, query: PageQueryDto): Promise<Page<RevisionDto>> {
    await this.find(id);
    return this.revisions.list(id, query);
  }

  /** A revision against the current configuration: what restoring it would change. */
  async revisionDiff(id: string, revisionId: string): Promise<RevisionDiffResponse> {
    const context = await this.context(id);
    const revision = await this.revisions.find(id, revisionId);
    return {
      revision: toRevisionDto(revision),
      ...restoreDiff(context.template, context.proxy, revision.overrides),
    };
  }

  /**
   * Sets the overrides and active state of a revision over the current template (a `restore`
   * revision). Keys, templates and other proxies are never touched.
   */
  async restore(id: string, revisionId: string, actor: string): Promise<RevisionDto> {
    const { revision } = await this.revise(id, {
      kind: 'restore',
      actor,
      action: 'proxy.revision-restored',
      apply: async ({ proxy }) => {
        const source = await this.revisions.find(id, revisionId);
        proxy.overrides = source.overrides;
        proxy.active = source.active;
        return { restoredFrom: source.id };
      },
    });
    return toRevisionDto(revision);
  }

  /** Puts a proxy in learning mode until `until` (in the future, at most 7 days ahead). */
  async startLearning(id: string, until: Date, actor: string): Promise<ProxyDto> {
    const now = this.clock.now();
    const problem = learningDeadlineProblem(until, now);
    if (problem) throw new BadRequestException([problem]);
    const proxy = await this.txHost.withTransaction(async () => {
      const context = await this.context(id, true);
      context.proxy.learningUntil = until;
      await this.proxies.save(context.proxy);
      await this.record(
        actor,
        'proxy.learning-started',
        context,
        `Learning mode until ${until.toISOString()}: refused requests are forwarded and recorded as learned warnings`,
      );
      return context.proxy;
    });
    await this.changes.publish('proxies', id);
    return toProxyDto(proxy);
  }

  async stopLearning(id: string, actor: string): Promise<ProxyDto> {
    const proxy = await this.txHost.withTransaction(async () => {
      const context = await this.context(id, true);
      if (context.proxy.learningUntil === null) return context.proxy;
      context.proxy.learningUntil = null;
      await this.proxies.save(context.proxy);
      await this.record(actor, 'proxy.learning-stopped', context, 'Learning mode stopped');
      return context.proxy;
    });
    await this.changes.publish('proxies', id);
    return toProxyDto(proxy);
  }

  /** The earliest learning deadline of any proxy, or null when none is learning. */
  async nextLearningDeadline(): Promise<Date | null> {
    const row = await this.proxies
      .createQueryBuilder('p')
      .select('min(p.learning_until)', 'next')
      .getRawOne<{ next: Date | string | null }>();
    return row?.next ? new Date(row.next) : null;
  }

  /** Ends learning mode on every proxy whose deadline has passed; each end is a recent change. */
  async endExpiredLearning(): Promise<string[]> {
    const ended = await this.txHost.withTransaction(async () => {
      const due = await this.proxies.find({
        where: { learningUntil: LessThanOrEqual(this.clock.date()) },
        lock: { mode: 'pessimistic_write' },
      });
      for (const proxy of due) {
        const deadline = proxy.learningUntil?.toISOString() ?? '';
        proxy.learningUntil = null;
        await this.proxies.save(proxy);
        const context = await this.context(proxy.id);
        await this.record(
          SYSTEM_ACTOR,
          'proxy.learning-ended',
          context,
          `Learning mode ended at its deadline (${deadline})`,
        );
      }
      return due.map((proxy) => proxy.id);
    });
    for (const id of ended) await this.changes.publish('proxies', id);
    return ended;
  }

  /**
   * What the proxy route's in-memory state needs of proxies (no key ciphertexts, no timestamps): every
   * proxy, one app's, or one proxy, in one query.
   */
  hotPathRows(where: { id?: string; appId?: string } = {}): Promise<ProxyHotPathRow[]> {
    return this.proxies.find({
      select: {
        id: true,
        appId: true,
        serviceId: true,
        active: true,
        keyDigest: true,
        overrides: true,
        learningUntil: true,
      },
      where,
    });
  }

  /** The proxies of these apps, oldest first: one query. */
  async ofApps(appIds: readonly string[]): Promise<ProxyRow[]> {
    if (appIds.length === 0) return [];
    return this.proxies.find({ where: { appId: In([...new Set(appIds)]) }, order: { createdAt: 'ASC' } });
  }

  /** Which of these proxies still exist: one query. */
  async existing(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.proxies.find({ select: { id: true }, where: { id: In([...new Set(ids)]) } });
    return new Set(rows.map((row) => row.id));
  }

  async find(id: string): Promise<ProxyEntity> {
    const proxy = await this.proxies.findOneBy({ id });
    if (!proxy) throw new NotFoundException('No such proxy');
    return proxy;
  }

  /**
   * The proxy, its app and service, and its template block; `lock` (inside a transaction) holds the
   * proxy row until commit.
   */
  async context(id: string, lock = false): Promise<ProxyContext> {
    const proxy = await this.proxies.findOne({
      where: { id },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!proxy) throw new NotFoundException('No such proxy');
    const app = await this.findApp(proxy.appId);
    const service = await this.services.find(proxy.serviceId);
    const template = await this.templates.block(app.templateId, service.type);
    return { proxy, app, service, template };
  }

  /** The app, read in the current transaction (`AppsService` joins the `TransactionHost` one). */
  private findApp(id: string): Promise<AppRow> {
    return this.apps.find(id);
  }

  /**
   * One change of a proxy's overrides or active state: applied under a row lock, recorded as a
   * revision with the added and removed effective grants, and in recent changes, in one transaction;
   * the in-memory state is updated before this returns.
   */
  async revise(id: string, change: Revise): Promise<{ context: ProxyContext; revision: RevisionRow }> {
    const result = await this.txHost.withTransaction(async () => {
      const context = await this.context(id, true);
      const { proxy, template } = context;
      const effectiveBefore = effectiveAllowlist(template, proxy.overrides);
      const activeBefore = proxy.active;
      const applied = await change.apply(context);
      await this.proxies.save(proxy);
      const summary = summarize(change.kind, {
        effectiveBefore,
        effectiveAfter: effectiveAllowlist(template, proxy.overrides),
        activeBefore,
        activeAfter: proxy.active,
      });
      const revision = await this.revisions.record({
        proxyId: id,
        kind: change.kind,
        overrides: proxy.overrides,
        active: proxy.active,
        author: change.actor,
        summary,
        restoredFrom: applied?.restoredFrom ?? null,
      });
      await change.alongside?.(context);
      await this.record(change.actor, change.action, context, describeSummary(summary));
      return { context, revision };
    });
    await this.changes.publish('proxies', id);
    return result;
  }

  private record(
    actor: string,
    action: string,
    { proxy, app, service }: Pick<ProxyContext, 'proxy' | 'app' | 'service'>,
    summary: string,
  ): Promise<void> {
    return this.audit.record({
      actor,
      action,
      objectType: 'proxy',
      objectId: proxy.id,
      objectName: `${app.name} → ${service.name}`,
      appId: app.id,
      summary,
    });
  }

  private allowlistOf({ proxy, template }: ProxyContext): AllowlistResponse {
    return allowlistOf(template, proxy.overrides);
  }

  private connection(proxy: ProxyEntity, app: AppRow, key: string): ProxyConnectionDto {
    return { ...toProxyDto(proxy), key, proxyUrl: `${this.config.publicUrl}/proxy/${app.slug}` };
  }
}
