import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import { AppEntity } from '@arrbiter/server/apps/entities';

/**
 * Calls of the proxy route refused with 401 in one hour, per app (`app_id` null: slugs no app has):
 * written behind by `UsageRecorder` from `UnauthorizedCounter`, whose upserts add to the count (one
 * row per app and hour, and one unknown-app row per hour: the two partial unique indexes). Never any
 * part of a key. Kept `USAGE_RETENTION_DAYS`.
 */
@Entity('unauthorized_usage')
@Index('IDX_unauthorized_usage_hour', ['hour'])
@Index('UQ_unauthorized_usage_app_hour', ['appId', 'hour'], { unique: true, where: '"app_id" IS NOT NULL' })
@Index('UQ_unauthorized_usage_unknown_hour', ['hour'], { unique: true, where: '"app_id" IS NULL' })
export class UnauthorizedUsageEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The start of the hour (UTC, on the hour). */
  @Column({ type: 'timestamptz' })
  hour!: Date;

  @Column({ name: 'app_id', type: 'uuid', nullable: true })
  appId!: string | null;

  @ManyToOne(() => AppEntity, { onDelete: 'CASCADE', nullable: true })
  @JoinColumn({ name: 'app_id' })
  app?: AppEntity;

  @Column({ type: 'integer', default: 0 })
  count!: number;

  @Column({ name: 'last_seen', type: 'timestamptz' })
  lastSeen!: Date;

  /** The last caller's address, as `TRUST_PROXY` resolves it. */
  @Column({ name: 'last_address', type: 'varchar', length: 64, nullable: true })
  lastAddress!: string | null;

  /** The last caller's User-Agent, cut to 200 characters. */
  @Column({ name: 'last_user_agent', type: 'varchar', length: 200, nullable: true })
  lastUserAgent!: string | null;
}
