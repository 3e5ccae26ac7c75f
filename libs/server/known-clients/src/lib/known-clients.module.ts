import { Module } from '@nestjs/common';
import { CatalogModule } from '@arrbiter/server/catalog';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { TemplatesModule } from '@arrbiter/server/templates';
import { ClientFitController } from './client-fit.controller';
import { ClientFitService } from './client-fit.service';
import { KnownClientsController } from './known-clients.controller';
import { KnownClientsService } from './known-clients.service';

/**
 * Known clients: the catalogue (`data/`), the fit of an allowlist to a client and its application to a
 * proxy (through `ProxyAllowlistService`), and who makes a refused call (`KnownClientsService.callers`,
 * which the warnings module reads).
 */
@Module({
  imports: [CatalogModule, ProxiesModule, TemplatesModule],
  controllers: [KnownClientsController, ClientFitController],
  providers: [KnownClientsService, ClientFitService],
  exports: [KnownClientsService],
})
export class KnownClientsModule {}
