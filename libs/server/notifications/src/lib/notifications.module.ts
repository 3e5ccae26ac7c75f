import { Global, Module } from '@nestjs/common';
import { TypeOrmModule } from '@nestjs/typeorm';
import { NotificationAttemptEntity } from './entities/notification-attempt.entity';
import { WebhookEntity } from './entities/webhook.entity';
import { NotificationDispatcher } from './notification-dispatcher';
import { NotificationsController } from './notifications.controller';
import { Notifier } from './notifier';
import { WebhooksService } from './webhooks.service';

/**
 * Notifications: the webhooks (`notification_webhook`), their delivery attempts
 * (`notification_attempt`) and the delivery itself. Global, for the `Notifier` port through which the
 * other domains raise events (they are imported by the composition root, as this module is, and never
 * by it), and `WebhooksService` for the declarative configuration's `notifications` section.
 */
@Global()
@Module({
  imports: [TypeOrmModule.forFeature([WebhookEntity, NotificationAttemptEntity])],
  controllers: [NotificationsController],
  providers: [WebhooksService, NotificationDispatcher, { provide: Notifier, useExisting: NotificationDispatcher }],
  exports: [Notifier, WebhooksService],
})
export class NotificationsModule {}
