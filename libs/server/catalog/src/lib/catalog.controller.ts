import { Body, Controller, Get, Param, Put } from '@nestjs/common';
import type { OpenApiDocumentDto } from '@arrbiter/contracts';
import { ChangesService } from '@arrbiter/server/history';
import { CatalogService } from './catalog.service';
import { AdminPrincipal, CurrentAdmin, EditAccess, ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1/openapi')
export class CatalogController {
  constructor(
    private readonly catalog: CatalogService,
    private readonly audit: ChangesService,
  ) {}

  @ReadAccess()
  @Get()
  list(): Promise<OpenApiDocumentDto[]> {
    return this.catalog.list();
  }

  /** Uploads the OpenAPI description of one API version of a service type (e.g. `sonarr`/`v5`). */
  @EditAccess()
  @Put(':serviceType/:apiVersion')
  async upload(
    @Param('serviceType') serviceType: string,
    @Param('apiVersion') apiVersion: string,
    @Body() document: unknown,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<OpenApiDocumentDto> {
    const stored = await this.catalog.upload(serviceType, apiVersion, document);
    await this.audit.record({
      actor: admin.actor,
      action: 'openapi.uploaded',
      objectType: 'openapi',
      objectName: `${stored.serviceType} ${stored.apiVersion}`,
      summary: `OpenAPI description of ${stored.serviceType} ${stored.apiVersion} uploaded (${stored.routes} routes)`,
    });
    return stored;
  }
}
