import { Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { CatalogController } from './catalog.controller';
import { CatalogService } from './catalog.service';
import { OpenApiDocumentEntity } from './entities/openapi-document.entity';

@Module({
  imports: [TypeOrmModule.forFeature([OpenApiDocumentEntity])],
  controllers: [CatalogController],
  providers: [CatalogService],
  exports: [CatalogService],
})
export class CatalogModule {}
