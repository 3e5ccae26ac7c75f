import { Body, Controller, Header, Param, Post, Req } from '@nestjs/common';
import type { ConnectClientResponse } from '@arrbiter/contracts';
import { AdminPrincipal, CurrentAdmin, EditAccess } from '@arrbiter/server/access';
import { ExternalUrls } from '@arrbiter/server/config';
import type { Request } from 'express';
import { ConnectService } from './connect.service';
import { ConnectClientDto } from './dto/connect.dto';

/** Connects a known client: one app, one proxy per service, each allowlist the client's calls. */
@Controller('api/admin/v1/known-clients')
export class ConnectController {
  constructor(
    private readonly connects: ConnectService,
    private readonly urls: ExternalUrls,
  ) {}

  /** 201 with the keys (once) and the set-up instructions; nothing is written on any error. */
  @EditAccess()
  @Post(':id/connect')
  @Header('Cache-Control', 'no-store')
  connect(
    @Param('id') id: string,
    @Body() dto: ConnectClientDto,
    @CurrentAdmin() admin: AdminPrincipal,
    @Req() request: Request,
  ): Promise<ConnectClientResponse> {
    return this.connects.connect(id, dto, admin.actor, this.urls.urlOf(request));
  }
}
