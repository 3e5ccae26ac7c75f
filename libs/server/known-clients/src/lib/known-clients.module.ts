import { Module } from '@nestjs/common';
import { CatalogModule } from '@arrbiter/server/catalog';
import { ProxiesModule } from '@arrbiter/server/proxies';
import { AppsModule } from '@arrbiter/server/apps';
import { ServicesModule } from '@arrbiter/server/services';
import { TemplatesModule } from '@arrbiter/server/templates';
import { UsageModule } from '@arrbiter/server/usage';
import { ClientFitController } from './client-fit.controller';
import { ClientFitService } from './client-fit.service';
import { ConnectController } from './connect.controller';
import { ConnectService } from './connect.service';
import { InstructionsController } from './instructions.controller';
import { KnownClientsController } from './known-clients.controller';
import { KnownClientsService } from './known-clients.service';

/**
 * Known clients: the catalogue (`data/`), the fit of an allowlist to a client and its application to a
 * proxy (through `ProxyAllowlistService`), and who makes a refused call (`KnownClientsService.callers`,
 * which the warnings module reads).
 */
@Module({
  imports: [CatalogModule, ProxiesModule, TemplatesModule, AppsModule, ServicesModule, UsageModule],
  controllers: [KnownClientsController, ClientFitController, ConnectController, InstructionsController],
  providers: [KnownClientsService, ClientFitService, ConnectService],
  exports: [KnownClientsService, ConnectService],
})
export class KnownClientsModule {}
