import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import type { OpenApiDocumentDto } from '@arrbiter/contracts';
import { CatalogService } from './catalog.service';

@Controller('api/admin/v1/openapi')
export class CatalogController {
  constructor(private readonly catalog: CatalogService) {}

  @Get()
  list(): Promise<OpenApiDocumentDto[]> {
    return this.catalog.list();
  }

  /** Uploads the OpenAPI description of one API version of a service type (e.g. `sonarr`/`v5`). */
  @Put(':serviceType/:apiVersion')
  upload(
    @Param('serviceType') serviceType: string,
    @Param('apiVersion') apiVersion: string,
    @Body() document: unknown,
  ): Promise<OpenApiDocumentDto> {
    return this.catalog.upload(serviceType, apiVersion, document);
  }
}
