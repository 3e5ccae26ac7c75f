import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { NotificationEventType, NotificationFormat } from '@arrbiter/contracts';

/** A webhook that notifications are delivered to. */
@Entity('notification_webhook')
export class WebhookEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The URL, AES-GCM encrypted under SECRET_KEY (Discord and ntfy keep their secrets in it). */
  @Column({ name: 'url_ciphertext', type: 'text' })
  urlCiphertext!: string;

  @Column({ type: 'varchar', length: 16 })
  format!: NotificationFormat;

  /** The events it is sent, in the order of `NOTIFICATION_EVENTS`. */
  @Column({ type: 'jsonb' })
  events!: NotificationEventType[];

  @Column({ type: 'boolean' })
  enabled!: boolean;

  /** Its place in the list, as the admin saved it. */
  @Column({ type: 'smallint' })
  position!: number;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
