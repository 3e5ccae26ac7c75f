import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AllowlistMap } from '@arrbiter/contracts';
import { AppRow, AppsService } from '@arrbiter/server/apps';
import { ChangesService } from '@arrbiter/server/history';
import type { ProxySubject } from '@arrbiter/server/notifications';
import { ServiceRow, ServicesService } from '@arrbiter/server/services';
import { TemplatesService } from '@arrbiter/server/templates';
import { In, Repository } from 'typeorm';
import { ProxyEntity } from './entities/proxy.entity';

/** A proxy with what its allowlist is computed from (read in the caller's transaction, when there is one). */
export interface ProxyContext {
  proxy: ProxyEntity;
  app: AppRow;
  service: ServiceRow;
  /** The app's template block for the service's type ({} without a template). */
  template: AllowlistMap;
}

/** A proxy as a notification names it. */
export function proxySubject({
  proxy,
  app,
  service,
}: Pick<ProxyContext, 'app' | 'service'> & {
  proxy: Pick<ProxyEntity, 'id'>;
}): ProxySubject {
  return { id: proxy.id, appId: app.id, appName: app.name, serviceId: service.id, serviceName: service.name };
}

/**
 * What the proxies' services share, inside the proxies lib: the `proxy` table, a proxy read with its
 * app, service and template block through their owners' services, and the recent change of a proxy
 * write.
 */
@Injectable()
export class ProxyStore {
  constructor(
    @InjectRepository(ProxyEntity) private readonly proxyRepository: Repository<ProxyEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly apps: AppsService,
    private readonly services: ServicesService,
    private readonly templates: TemplatesService,
    private readonly audit: ChangesService,
  ) {}

  /** The `proxy` repository, inside the caller's transaction when there is one. */
  get repository(): Repository<ProxyEntity> {
    return this.txHost.tx.withRepository(this.proxyRepository);
  }

  async find(id: string): Promise<ProxyEntity> {
    const proxy = await this.repository.findOneBy({ id });
    if (!proxy) throw new NotFoundException('No such proxy');
    return proxy;
  }

  /**
   * The proxy, its app and service, and its template block; `lock` (inside a transaction) holds the
   * proxy row until commit.
   */
  async context(id: string, lock = false): Promise<ProxyContext> {
    const proxy = await this.repository.findOne({
      where: { id },
      ...(lock ? { lock: { mode: 'pessimistic_write' as const } } : {}),
    });
    if (!proxy) throw new NotFoundException('No such proxy');
    return { proxy, ...(await this.around(proxy)) };
  }

  /** The app and the service of a proxy (stored or about to be), and the app's template block for it. */
  async around({ appId, serviceId }: Pick<ProxyEntity, 'appId' | 'serviceId'>): Promise<Omit<ProxyContext, 'proxy'>> {
    // AppsService and ServicesService read in the current transaction (they join the TransactionHost one).
    const app = await this.apps.find(appId);
    const service = await this.services.find(serviceId);
    const template = await this.templates.block(app.templateId, service.type);
    return { app, service, template };
  }

  /** The service type of each proxy, from its service (read through `ServicesService`: one query). */
  async serviceTypes(owners: ReadonlyMap<string, Pick<ProxyEntity, 'serviceId'>>): Promise<Map<string, string>> {
    const services = await this.services.byIds([...owners.values()].map((owner) => owner.serviceId));
    const types = new Map<string, string>();
    for (const [id, { serviceId }] of owners) {
      const type = services.get(serviceId)?.type;
      if (type !== undefined) types.set(id, type);
    }
    return types;
  }

  /**
   * How notifications name these proxies (those that still exist): three queries, however many proxies
   * (a flood of first refusals across many proxies names them all at once).
   */
  async subjects(ids: readonly string[]): Promise<Map<string, ProxySubject>> {
    const subjects = new Map<string, ProxySubject>();
    if (ids.length === 0) return subjects;
    const proxies = await this.repository.findBy({ id: In([...new Set(ids)]) });
    const apps = await this.apps.byIds(proxies.map((p) => p.appId));
    const services = await this.services.byIds(proxies.map((p) => p.serviceId));
    for (const proxy of proxies) {
      const app = apps.get(proxy.appId);
      const service = services.get(proxy.serviceId);
      if (app && service) subjects.set(proxy.id, proxySubject({ proxy, app, service }));
    }
    return subjects;
  }

  /** A proxy write in recent changes (in the caller's transaction). */
  record(
    actor: string,
    action: string,
    { proxy, app, service }: Pick<ProxyContext, 'app' | 'service'> & { proxy: Pick<ProxyEntity, 'id'> },
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
}
