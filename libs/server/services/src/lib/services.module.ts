import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '@arrbiter/server/catalog';
import { ServiceHealthEntity } from './entities/service-health.entity';
import { ServiceEntity } from './entities/service.entity';
import { ServarrClient } from './servarr-client';
import { ServicesController } from './services.controller';
import { ServiceReachabilityCheck } from './service-reachability';
import { ServicesService } from './services.service';

@Module({
  imports: [CatalogModule, TypeOrmModule.forFeature([ServiceEntity, ServiceHealthEntity])],
  controllers: [ServicesController],
  providers: [ServicesService, ServarrClient, ServiceReachabilityCheck],
  exports: [ServicesService],
})
export class ServicesModule {}
