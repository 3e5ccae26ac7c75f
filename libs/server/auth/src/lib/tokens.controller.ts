import { Body, Controller, Delete, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import type { ApiTokenDto, CreatedTokenResponse } from '@arrbiter/contracts';
import { ApiTokensService } from './api-tokens.service';
import { CreateTokenDto } from './dto/create-token.dto';
import { AdminPrincipal, CurrentAdmin, ReadAccess, SessionOnly } from '@arrbiter/server/access';

/**
 * API tokens: any signed-in account manages its own (a viewer makes viewer tokens), an owner sees and
 * revokes everyone's. Never with a token: a token cannot make tokens.
 */
@Controller('api/admin/v1/tokens')
export class TokensController {
  constructor(private readonly tokens: ApiTokensService) {}

  @ReadAccess()
  @SessionOnly()
  @Get()
  list(@CurrentAdmin() admin: AdminPrincipal): Promise<ApiTokenDto[]> {
    return this.tokens.list(admin);
  }

  @ReadAccess()
  @SessionOnly()
  @Post()
  create(@Body() dto: CreateTokenDto, @CurrentAdmin() admin: AdminPrincipal): Promise<CreatedTokenResponse> {
    return this.tokens.create(admin, dto);
  }

  @ReadAccess()
  @SessionOnly()
  @Delete(':id')
  @HttpCode(HttpStatus.NO_CONTENT)
  revoke(@Param('id', ParseUUIDPipe) id: string, @CurrentAdmin() admin: AdminPrincipal): Promise<void> {
    return this.tokens.revoke(admin, id);
  }
}
