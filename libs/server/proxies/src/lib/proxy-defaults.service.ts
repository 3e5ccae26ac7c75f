import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import type { ProxyDefaults } from '@arrbiter/contracts';
import { ChangesService } from '@arrbiter/server/history';
import { ProxyDefaultsDto } from './dto/proxy.dto';
import { ProxyDefaultsEntity } from './entities/proxy-defaults.entity';
import { rateLimitOf } from './proxy-rate-limit';

/** Before an admin sets them: no rate limit, responses scrubbed. */
const BUILT_IN: ProxyDefaults = { rateLimit: null, scrub: true };

/** What a new proxy starts with (one row; the built-in defaults until an admin saves some). */
@Injectable()
export class ProxyDefaultsService {
  constructor(
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly changes: ChangesService,
  ) {}

  async get(): Promise<ProxyDefaults> {
    const row = await this.txHost.tx.getRepository(ProxyDefaultsEntity).findOneBy({ id: 1 });
    return row ? { rateLimit: rateLimitOf(row), scrub: row.scrub } : BUILT_IN;
  }

  async put(dto: ProxyDefaultsDto, actor: string): Promise<ProxyDefaults> {
    await this.txHost.withTransaction(async () => {
      await this.txHost.tx.getRepository(ProxyDefaultsEntity).save({
        id: 1,
        rateLimitPerMinute: dto.rateLimit?.perMinute ?? null,
        rateLimitBurst: dto.rateLimit?.burst ?? null,
        scrub: dto.scrub,
      });
      await this.changes.record({
        actor,
        action: 'settings.proxy-defaults-saved',
        objectType: 'settings',
        objectName: 'proxy-defaults',
        summary: describe(dto),
      });
    });
    return this.get();
  }
}

function describe(dto: ProxyDefaults): string {
  const limit = dto.rateLimit ? `${dto.rateLimit.perMinute}/min, burst ${dto.rateLimit.burst}` : 'no rate limit';
  return `New proxies: ${limit}, ${dto.scrub ? 'responses scrubbed' : 'raw responses'}`;
}
