import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Global, Injectable, Module } from '@nestjs/common';
import { InjectRepository, TypeOrmModule } from '@nestjs/typeorm';
import { AppsModule, AppsService } from '@arrbiter/server/apps';
import { ServiceUsers } from '@arrbiter/server/services';
import { Repository } from 'typeorm';
import { ProxyEntity } from './entities/proxy.entity';

/** `ServiceUsers` over the `proxy` table: the apps of the service's proxies, named by `AppsService`. */
@Injectable()
export class ProxyUsersOfServices extends ServiceUsers {
  constructor(
    @InjectRepository(ProxyEntity) private readonly proxies: Repository<ProxyEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly apps: AppsService,
  ) {
    super();
  }

  async appNamesOf(serviceId: string): Promise<string[]> {
    const rows = await this.txHost.tx
      .withRepository(this.proxies)
      .find({ where: { serviceId }, select: { appId: true } });
    const names: string[] = [];
    for (const appId of new Set(rows.map((row) => row.appId))) names.push((await this.apps.find(appId)).name);
    return [...new Set(names)].sort((a, b) => a.localeCompare(b));
  }
}

/**
 * Provides `ServiceUsers` to the services module, which cannot import this one (it is imported by it):
 * global, so that the port reaches it without a cycle.
 */
@Global()
@Module({
  imports: [AppsModule, TypeOrmModule.forFeature([ProxyEntity])],
  providers: [{ provide: ServiceUsers, useClass: ProxyUsersOfServices }],
  exports: [ServiceUsers],
})
export class ServiceUsersModule {}
