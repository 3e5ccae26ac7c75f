import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import type { AppDto } from '@arrbiter/contracts';
import { AppsService, CloneAppDto } from '@arrbiter/server/apps';
import { generateProxyKey } from '@arrbiter/server/crypto';
import { ChangeBus } from '@arrbiter/server/database';
import { ProxiesService } from './proxies.service';
import { rateLimitOf } from './proxy-rate-limit';

/**
 * Clones an app: a new app (name, slug) with the source's template and active state, and for each of
 * its proxies one on the same service with the same overrides, active state, rate limit and scrubbing,
 * and a key of its own. Learning mode and a previous key are not copied: they belong to the source's
 * client. One transaction; the new proxies start their history with a revision saying where they
 * came from.
 */
@Injectable()
export class AppCloneService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly apps: AppsService,
    private readonly proxies: ProxiesService,
    private readonly changes: ChangeBus,
  ) {}

  async clone(sourceId: string, dto: CloneAppDto, actor: string): Promise<AppDto> {
    const copy = await this.txHost.withTransaction(async () => {
      const source = await this.apps.find(sourceId);
      const app = await this.apps.createInTransaction(
        {
          name: dto.name,
          slug: dto.slug,
          templateId: source.templateId,
          active: source.active,
          knownClientId: source.knownClientId,
        },
        actor,
        source,
      );
      for (const original of await this.proxies.ofApps([source.id])) {
        const settings = {
          active: original.active,
          overrides: original.overrides,
          rateLimit: rateLimitOf(original),
          scrub: original.scrub,
          // A key of its own, shown on the new proxy's page.
          key: generateProxyKey(),
        };
        await this.proxies.createInTransaction(
          app.id,
          original.serviceId,
          settings,
          actor,
          'created',
          `Proxy cloned from "${source.name}"`,
        );
      }
      return app;
    });
    // The new app and its proxies reach the proxy route together.
    await this.changes.publish('apps', copy.id);
    return this.apps.get(copy.id);
  }
}
