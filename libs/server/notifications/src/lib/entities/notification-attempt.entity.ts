import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { DeliveryStatus, NotificationEventType } from '@arrbiter/contracts';
import { WebhookEntity } from './webhook.entity';

/** One delivery attempt to a webhook (kept 30 days, at most 500 per webhook). */
@Entity('notification_attempt')
@Index('IDX_notification_attempt_webhook_at', ['webhookId', 'at', 'id'])
export class NotificationAttemptEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'webhook_id', type: 'uuid' })
  webhookId!: string;

  @ManyToOne(() => WebhookEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'webhook_id' })
  webhook?: WebhookEntity;

  @Column({ type: 'varchar', length: 32 })
  event!: NotificationEventType | 'test';

  @Index('IDX_notification_attempt_at')
  @Column({ type: 'timestamptz' })
  at!: Date;

  @Column({ type: 'varchar', length: 16 })
  status!: DeliveryStatus;

  @Column({ name: 'http_status', type: 'smallint', nullable: true })
  httpStatus!: number | null;

  @Column({ type: 'varchar', length: 300, nullable: true })
  error!: string | null;
}
