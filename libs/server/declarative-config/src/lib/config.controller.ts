import {
  Body,
  Controller,
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
import { AdminPrincipal, CurrentAdmin } from '@arrbiter/server/auth';
import type { Response } from 'express';
import { DeclarativeConfigService } from './declarative-config.service';
import { acceptsYaml, DocumentBodyInterceptor } from './document-body.interceptor';
import { ExportQueryDto, ImportQueryDto } from './dto/config-query.dto';

@Controller('api/admin/v1/config')
export class ConfigController {
  constructor(private readonly config: DeclarativeConfigService) {}

  /** The declarative document: JSON, or YAML with `Accept: application/yaml`; keys only with `?secrets=true`. */
  @Get('export')
  @Header('Cache-Control', 'no-store')
  async export(
    @Query() query: ExportQueryDto,
    @Headers('accept') accept: string | undefined,
    @Res({ passthrough: true }) response: Response,
  ): Promise<ConfigDocument | string> {
    const { type, body } = await this.config.exportAs(acceptsYaml(accept) ? 'yaml' : 'json', query.secrets ?? false);
    response.type(type);
    return body;
  }

  /** Applies a document (JSON or YAML) in one transaction, or with `?dryRun=true` only reports what it would change. */
  @Post('import')
  @HttpCode(HttpStatus.OK)
  @UseInterceptors(DocumentBodyInterceptor)
  import(
    @Query() query: ImportQueryDto,
    @Body() body: unknown,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<ConfigImportReport> {
    return this.config.importFromApi(body, { dryRun: query.dryRun ?? false, actor: admin.username });
  }
}
