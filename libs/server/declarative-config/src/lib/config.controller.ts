import {
  Body,
  Controller,
  ForbiddenException,
  Get,
  Header,
  Headers,
  HttpCode,
  HttpStatus,
  Post,
  Query,
  Res,
  UseInterceptors,
} from '@nestjs/common';
import type { ConfigDocument, ConfigImportReport } from '@arrbiter/contracts';
import { AdminPrincipal, CurrentAdmin, hasRole, OwnerAccess, ReadAccess } from '@arrbiter/server/access';
import type { Response } from 'express';
import { DeclarativeConfigService } from './declarative-config.service';
import { acceptsYaml, DocumentBodyInterceptor } from './document-body.interceptor';
import { ExportQueryDto, ImportQueryDto } from './dto/config-query.dto';

@Controller('api/admin/v1/config')
export class ConfigController {
  constructor(private readonly config: DeclarativeConfigService) {}

  /**
   * The declarative document: JSON, or YAML with `Accept: application/yaml`; keys only with
   * `?secrets=true`, which a viewer may not ask for (403). The secrets of owner-only settings (the
   * notification webhooks' URLs) stay masked for an editor: only an owner's export has them whole.
   */
  @ReadAccess()
  @Get('export')
  @Header('Cache-Control', 'no-store')
  async export(
    @Query() query: ExportQueryDto,
    @Headers('accept') accept: string | undefined,
    @CurrentAdmin() admin: AdminPrincipal,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ConfigDocument | string> {
    if (query.secrets && !hasRole(admin.role, 'editor')) {
      throw new ForbiddenException('Exporting secrets needs the editor role (viewers read everything but secrets)');
    }
    const secrets = query.secrets ?? false;
    const { type, body } = await this.config.exportAs(
      acceptsYaml(accept) ? 'yaml' : 'json',
      secrets,
      secrets && hasRole(admin.role, 'owner'),
    );
    response.type(type);
    return body;
  }

  /**
   * Applies a document (JSON or YAML) in one transaction, or with `?dryRun=true` only reports what it
   * would change. Owners only: a document holds server-wide settings too.
   */
  @OwnerAccess()
  @Post('import')
  @HttpCode(HttpStatus.OK)
  @UseInterceptors(DocumentBodyInterceptor)
  import(
    @Query() query: ImportQueryDto,
    @Body() body: unknown,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ConfigImportReport> {
    return this.config.importFromApi(body, { dryRun: query.dryRun ?? false, actor: admin.actor });
  }
}
