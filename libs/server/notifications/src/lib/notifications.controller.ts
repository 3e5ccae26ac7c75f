import { Body, Controller, Get, HttpCode, HttpStatus, Param, ParseUUIDPipe, Post, Put, Query } from '@nestjs/common';
import type { NotificationAttemptDto, NotificationSettings, Page } from '@arrbiter/contracts';
import { AdminPrincipal, CurrentAdmin, OwnerAccess, ReadAccess } from '@arrbiter/server/access';
import { PageQueryDto } from '@arrbiter/server/http';
import { NotificationSettingsDto } from './dto/notification-settings.dto';
import { NotificationDispatcher } from './notification-dispatcher';
import { WebhooksService } from './webhooks.service';

@Controller('api/admin/v1/settings/notifications')
export class NotificationsController {
  constructor(
    private readonly webhooks: WebhooksService,
    private readonly dispatcher: NotificationDispatcher,
  ) {}

  /** The webhooks, their URLs masked for every role (the whole URL is a secret). */
  @ReadAccess()
  @Get()
  settings(): Promise<NotificationSettings> {
    return this.webhooks.settings();
  }

  @OwnerAccess()
  @Put()
  save(@Body() dto: NotificationSettingsDto, @CurrentAdmin() admin: AdminPrincipal): Promise<NotificationSettings> {
    return this.webhooks.save(dto, admin.actor);
  }

  /** Sends a test message now; 200 with the attempt's result, delivered or not. */
  @OwnerAccess()
  @Post(':id/test')
  @HttpCode(HttpStatus.OK)
  test(@Param('id', ParseUUIDPipe) id: string): Promise<NotificationAttemptDto> {
    return this.dispatcher.test(id);
  }

  @ReadAccess()
  @Get(':id/attempts')
  attempts(
    @Param('id', ParseUUIDPipe) id: string,
    @Query() query: PageQueryDto,
  ): Promise<Page<NotificationAttemptDto>> {
    return this.webhooks.attempts(id, query);
  }
}
