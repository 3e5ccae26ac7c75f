import { Body, Controller, Param, ParseUUIDPipe, Post } from '@nestjs/common';
import type { AppDto } from '@arrbiter/contracts';
import { CloneAppDto } from '@arrbiter/server/apps';
import { AdminPrincipal, CurrentAdmin, EditAccess } from '@arrbiter/server/access';
import { AppCloneService } from './app-clone.service';

/** Cloning an app copies its proxies, so it lives with them (the apps module cannot see proxies). */
@Controller('api/admin/v1/apps')
export class AppCloneController {
  constructor(private readonly clones: AppCloneService) {}

  /** → 201 the new app; 409 when the slug is taken. */
  @EditAccess()
  @Post(':id/clone')
  clone(
    @Param('id', ParseUUIDPipe) id: string,
    @Body() dto: CloneAppDto,
    @CurrentAdmin() admin: AdminPrincipal,
  ): Promise<AppDto> {
    return this.clones.clone(id, dto, admin.actor);
  }
}
