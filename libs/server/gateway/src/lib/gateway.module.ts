import { Module } from '@nestjs/common';
import { CatalogModule } from '@arrbiter/server/catalog';
import { WarningsModule } from '@arrbiter/server/warnings';
import { AccessLog } from './access-log';
import { ProxyAccess } from './proxy-access';
import { ProxyRegistry } from './proxy-registry';
import { ProxyUpgradeHandler } from './proxy-upgrade.handler';
import { ProxyController } from './proxy.controller';
import { ProxyGuard } from './proxy.guard';
import { ProxyInterceptor } from './proxy.interceptor';
import { UpstreamForwarder } from './upstream-forwarder';

/** The proxy route: the hot path, served from memory. */
@Module({
  imports: [CatalogModule, WarningsModule],
  controllers: [ProxyController],
  providers: [
    AccessLog,
    ProxyRegistry,
    ProxyAccess,
    ProxyGuard,
    ProxyInterceptor,
    UpstreamForwarder,
    ProxyUpgradeHandler,
  ],
  exports: [ProxyRegistry],
})
export class GatewayModule {}
