import { Module } from '@nestjs/common';
import { CatalogModule } from '@arrbiter/server/catalog';
import { ServarrClient } from './servarr-client';
import { ServicesController } from './services.controller';
import { ServicesService } from './services.service';

@Module({
  imports: [CatalogModule],
  controllers: [ServicesController],
  providers: [ServicesService, ServarrClient],
  exports: [ServicesService],
})
export class ServicesModule {}
