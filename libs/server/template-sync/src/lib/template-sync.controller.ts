import { Body, Controller, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import type { TemplateDto, TemplateRepositoryStatus, TemplateSyncReport } from '@arrbiter/contracts';
import { SaveAsTemplateDto, SyncQueryDto, TemplateRepositoryDto } from './dto/template-repository.dto';
import { RepositorySettingsService } from './repository-settings.service';
import { TemplateSyncService } from './template-sync.service';
import { AdminPrincipal, CurrentAdmin, EditAccess, OwnerAccess, ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1')
export class TemplateSyncController {
  constructor(
    private readonly settings: RepositorySettingsService,
    private readonly sync: TemplateSyncService,
  ) {}

  @ReadAccess()
  @Get('settings/template-repository')
  getSettings(): Promise<TemplateRepositoryStatus> {
    return this.settings.status();
  }

  @OwnerAccess()
  @Put('settings/template-repository')
  putSettings(
    @Body() dto: TemplateRepositoryDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<TemplateRepositoryStatus> {
    return this.settings.put(dto, admin.actor);
  }

  /** Syncs now (`?dryRun=true`: reports what a sync would do and changes nothing). */
  @EditAccess()
  @Post('templates/sync')
  @HttpCode(HttpStatus.OK)
  syncNow(@Query() query: SyncQueryDto, @CurrentAdmin() admin: AdminPrincipal): Promise<TemplateSyncReport> {
    return this.sync.sync({ dryRun: query.dryRun ?? false, actor: admin.actor });
  }

  @EditAccess()
  @Post('apps/:id/save-as-template')
  saveAsTemplate(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: SaveAsTemplateDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<TemplateDto> {
    return this.sync.saveAppAsTemplate(id, dto.name, admin.actor);
  }
}
