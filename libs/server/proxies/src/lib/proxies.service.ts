import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { ConflictException, Injectable } from '@nestjs/common';
import type { ProxyConnectionDto, ProxyDto, RotateKeyResponse } from '@arrbiter/contracts';
import { AppRow, AppsService } from '@arrbiter/server/apps';
import { AppConfig } from '@arrbiter/server/config';
import { generateProxyKey, keyDigest, SecretBox } from '@arrbiter/server/crypto';
import { ChangeBus } from '@arrbiter/server/database';
import { isUniqueViolation } from '@arrbiter/server/http';
import { In } from 'typeorm';
import { CreateProxyDto } from './dto/proxy.dto';
import { ProxyEntity } from './entities/proxy.entity';
import { ProxyDefaultsService } from './proxy-defaults.service';
import { rateLimitOf } from './proxy-rate-limit';
import { ProxyRevisionsService } from './proxy-revisions.service';
import { ProxyStore } from './proxy-store';

/** The purpose a proxy key is encrypted for (bound into the ciphertext). */
export const PROXY_KEY_PURPOSE = 'proxy-key';

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
  | 'overrides'
  | 'learningUntil'
  | 'rateLimitPerMinute'
  | 'rateLimitBurst'
  | 'scrub'
>;

export function toProxyDto(proxy: ProxyRow): ProxyDto {
  return {
    id: proxy.id,
    appId: proxy.appId,
    serviceId: proxy.serviceId,
    active: proxy.active,
    learningUntil: proxy.learningUntil?.toISOString() ?? null,
    rateLimit: rateLimitOf(proxy),
    scrub: proxy.scrub,
    createdAt: proxy.createdAt.toISOString(),
    updatedAt: proxy.updatedAt.toISOString(),
  };
}

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
  ) {}

  async listForApp(appId: string): Promise<ProxyDto[]> {
    await this.apps.find(appId);
    return (await this.store.repository.find({ where: { appId }, order: { createdAt: 'ASC' } })).map(toProxyDto);
  }

  /** Gives an app access to a service with a new key (one proxy per service per app). */
  async create(appId: string, dto: CreateProxyDto, actor: string): Promise<ProxyConnectionDto> {
    const key = generateProxyKey();
    const { proxy, app } = await this.txHost.withTransaction(async () => {
      const around = await this.store.around({ appId, serviceId: dto.serviceId });
      const defaults = await this.defaults.get();
      const repository = this.store.repository;
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
            rateLimitPerMinute: defaults.rateLimit?.perMinute ?? null,
            rateLimitBurst: defaults.rateLimit?.burst ?? null,
            scrub: defaults.scrub,
          }),
        );
      } catch (error) {
        if (isUniqueViolation(error))
          throw new ConflictException(`The app "${around.app.name}" already has a proxy for this service`);
        throw error;
      }
      await this.revisions.recordCreated({ proxy, ...around }, actor);
      return { proxy, app: around.app };
    });
    await this.changes.publish('proxies', proxy.id);
    return this.connection(proxy, app, key);
  }

  /** Connection details: the key and the Proxy URL a client needs. */
  async get(id: string): Promise<ProxyConnectionDto> {
    const proxy = await this.store.find(id);
    return this.connection(
      proxy,
      await this.apps.find(proxy.appId),
      this.secrets.decrypt(proxy.keyCiphertext, PROXY_KEY_PURPOSE),
    );
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
    return toProxyDto(context.proxy);
  }

  /** A new key; the old one stops working before this returns. */
  async rotateKey(id: string, actor: string): Promise<RotateKeyResponse> {
    const key = generateProxyKey();
    await this.txHost.withTransaction(async () => {
      const context = await this.store.context(id);
      await this.store.repository.update(
        { id },
        { keyDigest: keyDigest(key), keyCiphertext: this.secrets.encrypt(key, PROXY_KEY_PURPOSE) },
      );
      await this.store.record(actor, 'proxy.key-rotated', context, 'Key rotated: the old key no longer works');
    });
    await this.changes.publish('proxies', id);
    return { key };
  }

  async remove(id: string, actor: string): Promise<void> {
    await this.txHost.withTransaction(async () => {
      const context = await this.store.context(id);
      await this.store.repository.delete({ id });
      await this.store.record(actor, 'proxy.deleted', context, 'Proxy deleted: its key no longer works');
    });
    await this.changes.publish('proxies', id);
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

  /** The proxy; 404 when there is none. */
  find(id: string): Promise<ProxyRow> {
    return this.store.find(id);
  }

  private connection(proxy: ProxyRow, app: AppRow, key: string): ProxyConnectionDto {
    return { ...toProxyDto(proxy), key, proxyUrl: `${this.config.publicUrl}/proxy/${app.slug}` };
  }
}
