import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Global, Injectable, Module } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { AppProxyCounts } from '@arrbiter/server/apps';
import { In, Repository } from 'typeorm';
import { ProxyEntity } from './entities/proxy.entity';

/** `AppProxyCounts` over the `proxy` table: one grouped count for the apps given. */
@Injectable()
export class ProxyCountsOfApps extends AppProxyCounts {
  constructor(
    @InjectRepository(ProxyEntity) private readonly proxies: Repository<ProxyEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
  ) {
    super();
  }

  async countFor(appIds: readonly string[]): Promise<Map<string, number>> {
    if (appIds.length === 0) return new Map();
    const rows = await this.txHost.tx
      .withRepository(this.proxies)
      .createQueryBuilder('p')
      .select('p.app_id', 'appId')
      .addSelect('count(*)', 'count')
      .where({ appId: In([...new Set(appIds)]) })
      .groupBy('p.app_id')
      .getRawMany<{ appId: string; count: string | number }>();
    // count(*) is a bigint: `pg` hands it over as a string.
    return new Map(rows.map((row) => [row.appId, Number(row.count)]));
  }
}

/**
 * Provides `AppProxyCounts` to the apps module, which cannot import this one (it is imported by it):
 * global, so that the port reaches it without a cycle.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([ProxyEntity])],
  providers: [{ provide: AppProxyCounts, useClass: ProxyCountsOfApps }],
  exports: [AppProxyCounts],
})
export class AppProxyCountsModule {}
