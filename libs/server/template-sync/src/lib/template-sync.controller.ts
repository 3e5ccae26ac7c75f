import { Body, Controller, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import type {
  AppliedTemplateChangeDto,
  TemplateDto,
  TemplateRepositoryStatus,
  TemplateSyncReport,
} from '@arrbiter/contracts';
import { SaveAsTemplateDto, SyncQueryDto, TemplateRepositoryDto } from './dto/template-repository.dto';
import { PendingTemplateChangesService } from './pending-template-changes.service';
import { RepositorySettingsService } from './repository-settings.service';
import { TemplateSyncService } from './template-sync.service';
import { AdminPrincipal, CurrentAdmin, EditAccess, OwnerAccess, ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1')
export class TemplateSyncController {
  constructor(
    private readonly settings: RepositorySettingsService,
    private readonly sync: TemplateSyncService,
    private readonly pending: PendingTemplateChangesService,
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

  /**
   * Applies the widening a sync held for this template (listed by `GET templates/pending`, in the
   * templates controller): the template and its proxies get the grants, a revision each.
   */
  @EditAccess()
  @Post('templates/:id/pending/apply')
  @HttpCode(HttpStatus.OK)
  applyPending(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<AppliedTemplateChangeDto> {
    return this.pending.apply(id, admin.actor);
  }

  /** Dismisses the widening a sync held for this template: nothing is granted. */
  @EditAccess()
  @Post('templates/:id/pending/dismiss')
  @HttpCode(HttpStatus.NO_CONTENT)
  dismissPending(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.pending.dismiss(id, admin.actor);
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
