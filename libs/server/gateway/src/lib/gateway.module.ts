import { Module } from '@nestjs/common';
import { CatalogModule } from '@arrbiter/server/catalog';
import { TemplatesModule } from '@arrbiter/server/templates';
import { WarningsModule } from '@arrbiter/server/warnings';
import { AccessLog } from './access-log';
import { BodyMemory, youngCollection } from './body-memory';
import { ProxyAccess } from './proxy-access';
import { ProxyGateway } from './proxy-gateway';
import { ProxyRegistry } from './proxy-registry';
import { UpstreamForwarder } from './upstream-forwarder';

/** The proxy route: the hot path, served from memory in front of Express. */
@Module({
  imports: [CatalogModule, TemplatesModule, WarningsModule],
  providers: [
    AccessLog,
    ProxyRegistry,
    ProxyAccess,
    { provide: BodyMemory, useFactory: () => new BodyMemory(youngCollection()) },
    UpstreamForwarder,
    ProxyGateway,
  ],
  exports: [ProxyRegistry],
})
export class GatewayModule {}
