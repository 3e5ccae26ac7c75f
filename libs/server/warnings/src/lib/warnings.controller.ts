import { Body, Controller, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Post, Query } from '@nestjs/common';
import type {
  BulkWarningsResponse,
  LearnedGrantResponse,
  Page,
  WarningDto,
  WarningGrantResponse,
} from '@arrbiter/contracts';
import { BulkWarningsDto } from './dto/bulk-warnings.dto';
import { GrantWarningDto } from './dto/grant-warning.dto';
import { ListWarningsDto } from './dto/list-warnings.dto';
import { WarningsService } from './warnings.service';
import { AdminPrincipal, CurrentAdmin, EditAccess, ReadAccess } from '@arrbiter/server/access';

@Controller('api/admin/v1')
export class WarningsController {
  constructor(private readonly warnings: WarningsService) {}

  @ReadAccess()
  @Get('warnings')
  list(@Query() query: ListWarningsDto): Promise<Page<WarningDto>> {
    return this.warnings.list(query);
  }

  /** Grants up to 100 warnings (sensitive ones only when confirmed), one revision per proxy. */
  @EditAccess()
  @Post('warnings/grant')
  @HttpCode(HttpStatus.OK)
  grantMany(@Body() body: BulkWarningsDto, @CurrentAdmin() admin: AdminPrincipal): Promise<BulkWarningsResponse> {
    return this.warnings.grantMany(body, admin.actor);
  }

  /** Dismisses up to 100 warnings. */
  @EditAccess()
  @Post('warnings/dismiss')
  @HttpCode(HttpStatus.OK)
  dismissMany(@Body() body: BulkWarningsDto, @CurrentAdmin() admin: AdminPrincipal): Promise<BulkWarningsResponse> {
    return this.warnings.dismissMany(body, admin.actor);
  }

  @EditAccess()
  @Post('warnings/:id/grant')
  @HttpCode(HttpStatus.OK)
  grant(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() body: GrantWarningDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<WarningGrantResponse> {
    return this.warnings.grant(id, admin.actor, body);
  }

  @EditAccess()
  @Post('warnings/:id/dismiss')
  @HttpCode(HttpStatus.OK)
  dismiss(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<WarningDto> {
    return this.warnings.dismiss(id, admin.actor);
  }

  /** Grants every route a proxy learned in learning mode, in one revision. */
  @EditAccess()
  @Post('proxies/:id/learned/grant')
  @HttpCode(HttpStatus.OK)
  grantLearned(
    @Param('id', ParseUUIDPipe) id: string,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<LearnedGrantResponse> {
    return this.warnings.grantLearned(id, admin.actor);
  }
}
