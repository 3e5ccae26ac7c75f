import { Controller, Get, Query } from '@nestjs/common';
import type { ChangeDto, Page } from '@arrbiter/contracts';
import { ChangesService } from './changes.service';
import { ListChangesDto } from './dto/list-changes.dto';
import { ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1/changes')
export class ChangesController {
  constructor(private readonly changes: ChangesService) {}

  /** Recent changes: every admin write and system action, newest first. */
  @ReadAccess()
  @Get()
  list(@Query() query: ListChangesDto): Promise<Page<ChangeDto>> {
    return this.changes.list(query);
  }
}
