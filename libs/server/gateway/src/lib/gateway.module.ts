import { Module } from '@nestjs/common';
import { AppsModule } from '@arrbiter/server/apps';
import { CatalogModule } from '@arrbiter/server/catalog';
import { Metrics } from '@arrbiter/server/metrics';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { ServicesModule } from '@arrbiter/server/services';
import { TemplatesModule } from '@arrbiter/server/templates';
import { UsageModule } from '@arrbiter/server/usage';
import { WarningsModule } from '@arrbiter/server/warnings';
import { AccessLog } from './access-log';
import { AllowlistInterceptor } from './allowlist.interceptor';
import { BodyMemory, youngCollection } from './body-memory';
import { ProxyAccess } from './proxy-access';
import { RateLimiter } from './rate-limiter';
import { ProxyExceptionFilter } from './proxy-exception.filter';
import { ProxyGateway } from './proxy-gateway';
import { ProxyKeyGuard } from './proxy-key.guard';
import { ProxyMetering } from './proxy-metering';
import { ProxyRegistry } from './proxy-registry';
import { ProxyHandler } from './proxy.handler';
import { RecentCalls } from './recent-calls';
import { RecentCallsController } from './recent-calls.controller';
import { UpstreamForwarder } from './upstream-forwarder';

/** The proxy route: the hot path, served from memory by its own pipeline (guard, interceptor, handler). */
@Module({
  imports: [AppsModule, CatalogModule, TemplatesModule, WarningsModule, ProxiesModule, ServicesModule, UsageModule],
  providers: [
    // null with metrics off (no METRICS_PORT): the access line then skips them.
    {
      provide: ProxyMetering,
      useFactory: (metrics: Metrics | undefined, registry: ProxyRegistry) =>
        metrics ? new ProxyMetering(metrics, registry) : null,
      inject: [{ token: Metrics, optional: true }, ProxyRegistry],
    },
    AccessLog,
    RecentCalls,
    ProxyRegistry,
    ProxyAccess,
    RateLimiter,
    { provide: BodyMemory, useFactory: () => new BodyMemory(youngCollection()) },
    UpstreamForwarder,
    ProxyKeyGuard,
    AllowlistInterceptor,
    ProxyExceptionFilter,
    ProxyHandler,
    ProxyGateway,
  ],
  controllers: [RecentCallsController],
  exports: [ProxyRegistry, ProxyGateway],
})
export class GatewayModule {}
