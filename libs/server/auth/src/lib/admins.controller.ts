import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Patch, Post } from '@nestjs/common';
import type { AdminAccountDto } from '@arrbiter/contracts';
import { AccountsService } from './accounts.service';
import { CreateAdminDto, UpdateAdminDto } from './dto/admin.dto';
import { AdminPrincipal, CurrentAdmin, OwnerAccess, SessionOnly } from '@arrbiter/server/access';

/** Administrator accounts: owners only, signed in (an API token cannot manage accounts). */
@Controller('api/admin/v1/admins')
export class AdminsController {
  constructor(private readonly accounts: AccountsService) {}

  @OwnerAccess()
  @SessionOnly()
  @Get()
  list(): Promise<AdminAccountDto[]> {
    return this.accounts.list();
  }

  @OwnerAccess()
  @SessionOnly()
  @Post()
  create(@Body() dto: CreateAdminDto, @CurrentAdmin() admin: AdminPrincipal): Promise<AdminAccountDto> {
    return this.accounts.create(admin, dto);
  }

  @OwnerAccess()
  @SessionOnly()
  @Patch(':id')
  update(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: UpdateAdminDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<AdminAccountDto> {
    return this.accounts.update(admin, id, dto);
  }

  /** Unlinks an account from its single sign-on identity (its sessions end); 204 also when it had none. */
  @OwnerAccess()
  @SessionOnly()
  @Delete(':id/sso')
  @HttpCode(HttpStatus.NO_CONTENT)
  unlinkSso(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.accounts.unlinkSso(admin, id);
  }

  @OwnerAccess()
  @SessionOnly()
  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  remove(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.accounts.remove(admin, id);
  }
}
