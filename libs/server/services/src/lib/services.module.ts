import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogModule } from '@arrbiter/server/catalog';
import { ServiceEntity } from './entities/service.entity';
import { ServarrClient } from './servarr-client';
import { ServicesController } from './services.controller';
import { ServicesService } from './services.service';

@Module({
  imports: [CatalogModule, TypeOrmModule.forFeature([ServiceEntity])],
  controllers: [ServicesController],
  providers: [ServicesService, ServarrClient],
  exports: [ServicesService],
})
export class ServicesModule {}
