import { Controller, Get, Query } from '@nestjs/common';
import type { Page, WarningDto } from '@arrbiter/contracts';
import { ListWarningsDto } from './dto/list-warnings.dto';
import { WarningsService } from './warnings.service';

@Controller('api/admin/v1/warnings')
export class WarningsController {
  constructor(private readonly warnings: WarningsService) {}

  @Get()
  list(@Query() query: ListWarningsDto): Promise<Page<WarningDto>> {
    return this.warnings.list(query);
  }
}
