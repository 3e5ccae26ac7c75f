import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ConflictException, Injectable, NotFoundException } from '@nestjs/common';
import type {
  AllowlistMap,
  ProxyConnectionDto,
  ProxyDetailsDto,
  ProxyDto,
  ProxyKeyResponse,
  RateLimit,
  RevisionKind,
  RotateKeyResponse,
} from '@arrbiter/contracts';
import { AppRow, AppsService } from '@arrbiter/server/apps';
import { AppConfig, Clock } from '@arrbiter/server/config';
import { generateProxyKey, SecretBox } from '@arrbiter/server/crypto';
import { ChangeBus } from '@arrbiter/server/database';
import { isUniqueViolation } from '@arrbiter/server/http';
import { Notifier, ProxySubject } from '@arrbiter/server/notifications';
import { In } from 'typeorm';
import { CreateProxyDto } from './dto/proxy.dto';
import { ProxyEntity } from './entities/proxy.entity';
import { ProxyDefaultsService } from './proxy-defaults.service';
import { PROXY_KEY_PURPOSE, sealedKey, sealKey } from './proxy-key';
import { rateLimitOf } from './proxy-rate-limit';
import { ProxyRevisionsService } from './proxy-revisions.service';
import { ProxyStore, proxySubject } from './proxy-store';

export { PROXY_KEY_PURPOSE };

/** A proxy as the other domains read it (the entity class stays inside this lib). */
export type ProxyRow = Omit<ProxyEntity, 'app' | 'service'>;

/** What the proxy route's in-memory state needs of a proxy (no key ciphertext, no timestamps). */
export type ProxyHotPathRow = Pick<
  ProxyEntity,
  | 'id'
  | 'appId'
  | 'serviceId'
  | 'active'
  | 'keyDigest'
  | 'previousKeyDigest'
  | 'previousKeyValidUntil'
  | 'overrides'
  | 'learningUntil'
  | 'rateLimitPerMinute'
  | 'rateLimitBurst'
  | 'scrub'
>;

/** A proxy's settings as a declarative configuration document states them, every field resolved. */
export interface DeclaredProxy {
  active: boolean;
  /** Checked and normalised (`checkedOverrides`). */
  overrides: AllowlistMap;
  rateLimit: RateLimit | null;
  scrub: boolean;
  /** Absent: an existing proxy keeps its key. */
  key?: string;
}

/** The name of the constraint a database error broke, when the driver says. */
function constraintOf(error: unknown): string | undefined {
  return (error as { driverError?: { constraint?: string } }).driverError?.constraint;
}

/** The proxy as the admin API shows it; its previous key only while that still works at `now` (epoch ms). */
export function toProxyDto(proxy: ProxyRow, now: number): ProxyDto {
  const validUntil = proxy.previousKeyDigest !== null ? proxy.previousKeyValidUntil : null;
  return {
    id: proxy.id,
    appId: proxy.appId,
    serviceId: proxy.serviceId,
    active: proxy.active,
    learningUntil: proxy.learningUntil?.toISOString() ?? null,
    rateLimit: rateLimitOf(proxy),
    scrub: proxy.scrub,
    previousKey:
      validUntil !== null && validUntil.getTime() > now
        ? {
            validUntil: validUntil.toISOString(),
            uses: proxy.previousKeyUses,
            lastUsedAt: proxy.previousKeyLastUsedAt?.toISOString() ?? null,
          }
        : null,
    createdAt: proxy.createdAt.toISOString(),
    updatedAt: proxy.updatedAt.toISOString(),
  };
}

/** No previous key: what a new proxy, a rotation without grace period, or the end of one, leaves. */
const NO_PREVIOUS_KEY = {
  previousKeyDigest: null,
  previousKeyCiphertext: null,
  previousKeyValidUntil: null,
  previousKeyUses: 0,
  previousKeyLastUsedAt: null,
} as const satisfies Partial<ProxyEntity>;

/**
 * Proxies: an app's access to a service, its key and its active state, and the reads the other
 * domains make of them. Every write runs in one `TransactionHost` transaction with its revision (when
 * it changes the state) and its recent change. The allowlist, revisions and learning mode have
 * services of their own (`ProxyAllowlistService`, `ProxyRevisionsService`, `ProxyLearningService`).
 */
@Injectable()
export class ProxiesService {
  constructor(
    private readonly store: ProxyStore,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly revisions: ProxyRevisionsService,
    private readonly apps: AppsService,
    private readonly secrets: SecretBox,
    private readonly config: AppConfig,
    private readonly changes: ChangeBus,
    private readonly defaults: ProxyDefaultsService,
    private readonly clock: Clock,
    private readonly notifier: Notifier,
  ) {}

  async listForApp(appId: string): Promise<ProxyDto[]> {
    await this.apps.find(appId);
    const now = this.clock.now();
    return (await this.store.repository.find({ where: { appId }, order: { createdAt: 'ASC' } })).map((proxy) =>
      toProxyDto(proxy, now),
    );
  }

  /** Gives an app access to a service with a new key (one proxy per service per app). */
  /** `externalUrl`: where callers reach this server (`ExternalUrls.urlOf` the request), for the Proxy URL. */
  async create(appId: string, dto: CreateProxyDto, actor: string, externalUrl: string): Promise<ProxyConnectionDto> {
    const key = generateProxyKey();
    const { proxy, app } = await this.txHost.withTransaction(async () => {
      const defaults = await this.defaults.get();
      const proxy = await this.createInTransaction(
        appId,
        dto.serviceId,
        { active: true, overrides: {}, rateLimit: defaults.rateLimit, scrub: defaults.scrub, key },
        actor,
        'created',
      );
      return { proxy, app: await this.apps.find(appId) };
    });
    await this.changes.publish('proxies', proxy.id);
    return this.connection(proxy, app, key, externalUrl);
  }

  /**
   * Creates a proxy with these settings and its first revision (of `kind`, headed `title`) and recent
   * change, in the caller's transaction; the caller publishes `proxies`. Overrides must have been checked.
   */
  async createInTransaction(
    appId: string,
    serviceId: string,
    settings: DeclaredProxy & { key: string },
    actor: string,
    kind: RevisionKind,
    title?: string,
  ): Promise<ProxyRow> {
    return this.txHost.withTransaction(async () => {
      const around = await this.store.around({ appId, serviceId });
      const repository = this.store.repository;
      let proxy: ProxyEntity;
      try {
        proxy = await repository.save(
          repository.create({
            appId,
            serviceId,
            active: settings.active,
            ...sealKey(this.secrets, settings.key),
            ...NO_PREVIOUS_KEY,
            overrides: settings.overrides,
            learningUntil: null,
            rateLimitPerMinute: settings.rateLimit?.perMinute ?? null,
            rateLimitBurst: settings.rateLimit?.burst ?? null,
            scrub: settings.scrub,
          }),
        );
      } catch (error) {
        if (isUniqueViolation(error)) {
          throw new ConflictException(
            constraintOf(error) === 'UQ_proxy_app_service'
              ? `The app "${around.app.name}" already has a proxy for this service`
              : 'The key is already used by another proxy',
          );
        }
        throw error;
      }
      await this.revisions.recordCreated({ proxy, ...around }, actor, kind, title);
      return proxy;
    });
  }

  /**
   * Sets a proxy to what a declarative document states, under its row lock, as one `import` revision
   * with its recent change, in the caller's transaction; the caller publishes `proxies`. A key given
   * replaces the proxy's (the old one stops working). `effectiveBefore`: the effective allowlist before
   * the import changed the app's template in the same transaction.
   */
  async applyDeclaredInTransaction(
    id: string,
    declared: DeclaredProxy,
    actor: string,
    effectiveBefore?: AllowlistMap,
  ): Promise<void> {
    await this.revisions.reviseInTransaction(
      id,
      {
        kind: 'import',
        actor,
        action: 'proxy.imported',
        apply: ({ proxy }) => {
          proxy.active = declared.active;
          proxy.overrides = declared.overrides;
          proxy.rateLimitPerMinute = declared.rateLimit?.perMinute ?? null;
          proxy.rateLimitBurst = declared.rateLimit?.burst ?? null;
          proxy.scrub = declared.scrub;
          // The key it replaces stops working, and so does a previous key still in its grace period.
          if (declared.key !== undefined) Object.assign(proxy, sealKey(this.secrets, declared.key), NO_PREVIOUS_KEY);
        },
      },
      effectiveBefore,
    );
  }

  /** Connection details: the Proxy URL a client needs and, `withKey`, the key (a secret viewers never see). */
  async get(id: string, withKey: boolean, externalUrl: string): Promise<ProxyDetailsDto> {
    const proxy = await this.store.find(id);
    const app = await this.apps.find(proxy.appId);
    if (!withKey) return { ...toProxyDto(proxy, this.clock.now()), proxyUrl: proxyUrl(externalUrl, app) };
    return this.connection(proxy, app, this.secrets.decrypt(proxy.keyCiphertext, PROXY_KEY_PURPOSE), externalUrl);
  }

  /** The proxy's key alone (revealing it in the dashboard). */
  async key(id: string): Promise<ProxyKeyResponse> {
    const proxy = await this.store.find(id);
    return { key: this.secrets.decrypt(proxy.keyCiphertext, PROXY_KEY_PURPOSE) };
  }

  /** Activates or deactivates a proxy (a `manual` revision). */
  async setActive(id: string, active: boolean, actor: string): Promise<ProxyDto> {
    const { context } = await this.revisions.revise(id, {
      kind: 'manual',
      actor,
      action: active ? 'proxy.activated' : 'proxy.deactivated',
      apply: ({ proxy }) => {
        proxy.active = active;
      },
    });
    return toProxyDto(context.proxy, this.clock.now());
  }

  /**
   * A new key. With a grace period the old key keeps working until it ends (the proxy's previous key,
   * replacing any earlier one, which stops at once); without, it stops before this returns.
   */
  async rotateKey(id: string, graceMinutes: number, actor: string): Promise<RotateKeyResponse> {
    const { key, ...sealed } = sealedKey(this.secrets);
    const now = this.clock.now();
    const validUntil = graceMinutes > 0 ? new Date(now + graceMinutes * 60_000) : null;
    const context = await this.txHost.withTransaction(async () => {
      const context = await this.store.context(id, true);
      const { proxy } = context;
      const replaced = proxy.previousKeyDigest !== null && (proxy.previousKeyValidUntil?.getTime() ?? 0) > now;
      await this.store.repository.update(
        { id },
        {
          ...sealed,
          ...NO_PREVIOUS_KEY,
          ...(validUntil && {
            previousKeyDigest: proxy.keyDigest,
            previousKeyCiphertext: proxy.keyCiphertext,
            previousKeyValidUntil: validUntil,
          }),
        },
      );
      const summary = validUntil
        ? `Key rotated: the old key keeps working until ${validUntil.toISOString()} (${graceMinutes} min)`
        : 'Key rotated: the old key no longer works';
      await this.store.record(
        actor,
        'proxy.key-rotated',
        context,
        replaced ? `${summary}; the key it had replaced stopped working` : summary,
      );
      return context;
    });
    await this.changes.publish('proxies', id);
    this.notifier.raise({
      type: 'key.rotated',
      proxy: proxySubject(context),
      actor,
      previousKeyValidUntil: validUntil,
    });
    return { key, previousKeyValidUntil: validUntil?.toISOString() ?? null };
  }

  /** Ends the grace period of the previous key now (404 when none is running); it stops before this returns. */
  async endGrace(id: string, actor: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const context = await this.store.context(id, true);
      const { proxy } = context;
      const validUntil = proxy.previousKeyDigest !== null ? proxy.previousKeyValidUntil : null;
      if (validUntil === null || validUntil.getTime() <= this.clock.now())
        throw new NotFoundException('This proxy has no previous key in a grace period');
      await this.store.repository.update({ id }, NO_PREVIOUS_KEY);
      await this.store.record(
        actor,
        'proxy.previous-key-ended',
        context,
        `Grace period ended early: the previous key no longer works (it was valid until ${validUntil.toISOString()}; used ${proxy.previousKeyUses} times)`,
      );
    });
    await this.changes.publish('proxies', id);
  }

  async remove(id: string, actor: string): Promise<void> {
    await this.txHost.withTransaction(() => this.removeInTransaction(id, actor));
    await this.changes.publish('proxies', id);
  }

  /** Deletes a proxy with its recent change, in the caller's transaction; the caller publishes `proxies`. */
  async removeInTransaction(id: string, actor: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const context = await this.store.context(id);
      await this.store.repository.delete({ id });
      await this.store.record(actor, 'proxy.deleted', context, 'Proxy deleted: its key no longer works');
    });
  }

  /** Every proxy, oldest first (a declarative export or import reads them all): one query. */
  all(): Promise<ProxyRow[]> {
    return this.store.repository.find({ order: { createdAt: 'ASC' } });
  }

  /** A proxy's key, decrypted (for an export with secrets). */
  keyOf(proxy: Pick<ProxyRow, 'keyCiphertext'>): string {
    return this.secrets.decrypt(proxy.keyCiphertext, PROXY_KEY_PURPOSE);
  }

  /** Every proxy, one app's, or one proxy, with what the proxy route needs: one query. */
  hotPathRows(where: { id?: string; appId?: string } = {}): Promise<ProxyHotPathRow[]> {
    return this.store.repository.find({
      select: {
        id: true,
        appId: true,
        serviceId: true,
        active: true,
        keyDigest: true,
        previousKeyDigest: true,
        previousKeyValidUntil: true,
        overrides: true,
        learningUntil: true,
        rateLimitPerMinute: true,
        rateLimitBurst: true,
        scrub: true,
      },
      where,
    });
  }

  /** The proxies of these apps, oldest first: one query. */
  async ofApps(appIds: readonly string[]): Promise<ProxyRow[]> {
    if (appIds.length === 0) return [];
    return this.store.repository.find({
      where: { appId: In([...new Set(appIds)]) },
      order: { createdAt: 'ASC' },
    });
  }

  /** Which of these proxies still exist: one query. */
  async existing(ids: readonly string[]): Promise<Set<string>> {
    if (ids.length === 0) return new Set();
    const rows = await this.store.repository.find({ select: { id: true }, where: { id: In([...new Set(ids)]) } });
    return new Set(rows.map((row) => row.id));
  }

  /** The app and service of each of these proxies that still exists: one query. */
  async owners(ids: readonly string[]): Promise<Map<string, Pick<ProxyRow, 'appId' | 'serviceId'>>> {
    if (ids.length === 0) return new Map();
    const rows = await this.store.repository.find({
      select: { id: true, appId: true, serviceId: true },
      where: { id: In([...new Set(ids)]) },
    });
    return new Map(rows.map((row) => [row.id, { appId: row.appId, serviceId: row.serviceId }]));
  }

  /** The service type of each of these proxies that still exists: two queries. */
  async serviceTypes(ids: readonly string[]): Promise<Map<string, string>> {
    return this.store.serviceTypes(await this.owners(ids));
  }

  /** How notifications name these proxies (those that still exist). */
  subjects(ids: readonly string[]): Promise<Map<string, ProxySubject>> {
    return this.store.subjects(ids);
  }

  /** The proxy; 404 when there is none. */
  find(id: string): Promise<ProxyRow> {
    return this.store.find(id);
  }

  private connection(proxy: ProxyRow, app: AppRow, key: string, externalUrl: string): ProxyConnectionDto {
    return { ...toProxyDto(proxy, this.clock.now()), key, proxyUrl: proxyUrl(externalUrl, app) };
  }
}

/** The Proxy URL a client puts where it would put the upstream's. */
function proxyUrl(externalUrl: string, app: AppRow): string {
  return `${externalUrl}/proxy/${app.slug}`;
}
