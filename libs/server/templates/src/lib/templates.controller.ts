import { Controller, Get, Param, ParseUUIDPipe } from '@nestjs/common';
import type { PendingTemplateChangeDto, TemplateDto } from '@arrbiter/contracts';
import { PendingTemplateChanges } from './pending-template-changes';
import { TemplatesService } from './templates.service';
import { ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1/templates')
export class TemplatesController {
  constructor(
    private readonly templates: TemplatesService,
    private readonly pendingChanges: PendingTemplateChanges,
  ) {}

  @ReadAccess()
  @Get()
  list(): Promise<TemplateDto[]> {
    return this.templates.list();
  }

  /** Widenings of templates in use held for review (declared before `:id`, which would take the path). */
  @ReadAccess()
  @Get('pending')
  pending(): Promise<PendingTemplateChangeDto[]> {
    return this.pendingChanges.list();
  }

  @ReadAccess()
  @Get(':id')
  get(@Param('id', ParseUUIDPipe) id: string): Promise<TemplateDto> {
    return this.templates.get(id);
  }
}
