import { Controller, Get, Param, ParseUUIDPipe } from '@nestjs/common';
import type { TemplateDto } from '@arrbiter/contracts';
import { TemplatesService } from './templates.service';
import { ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1/templates')
export class TemplatesController {
  constructor(private readonly templates: TemplatesService) {}

  @ReadAccess()
  @Get()
  list(): Promise<TemplateDto[]> {
    return this.templates.list();
  }

  @ReadAccess()
  @Get(':id')
  get(@Param('id', ParseUUIDPipe) id: string): Promise<TemplateDto> {
    return this.templates.get(id);
  }
}
