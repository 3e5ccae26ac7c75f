import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  Unique,
  UpdateDateColumn,
} from 'typeorm';
import { AppEntity } from '@arrbiter/server/apps/entities';
import { ServiceEntity } from '@arrbiter/server/services/entities';

/** An app's access to one service: its own key and allowlist. */
@Entity('proxy')
@Unique('UQ_proxy_app_service', ['appId', 'serviceId'])
export class ProxyEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'app_id', type: 'uuid' })
  appId!: string;

  @ManyToOne(() => AppEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'app_id' })
  app?: AppEntity;

  @Index()
  @Column({ name: 'service_id', type: 'uuid' })
  serviceId!: string;

  @ManyToOne(() => ServiceEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'service_id' })
  service?: ServiceEntity;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  /** Hex SHA-256 of the proxy key: how a request's key is looked up. */
  @Column({ name: 'key_digest', type: 'char', length: 64, unique: true })
  keyDigest!: string;

  /** The proxy key, AES-GCM encrypted, for the connection-details view. */
  @Column({ name: 'key_ciphertext', type: 'text' })
  keyCiphertext!: string;

  /**
   * The key replaced by a rotation with a grace period, while that runs: its digest (looked up only
   * when a key matches no current one), AES-GCM encrypted like the current key, and when it stops
   * working. All three null when there is none. Never shown.
   */
  @Column({ name: 'previous_key_digest', type: 'char', length: 64, nullable: true })
  previousKeyDigest!: string | null;

  @Column({ name: 'previous_key_ciphertext', type: 'text', nullable: true })
  previousKeyCiphertext!: string | null;

  @Column({ name: 'previous_key_valid_until', type: 'timestamptz', nullable: true })
  previousKeyValidUntil!: Date | null;

  /** Calls made with the previous key since the rotation (added up by every replica, written behind). */
  @Column({
    name: 'previous_key_uses',
    type: 'bigint',
    default: 0,
    transformer: { to: (value: number) => value, from: (value: string | number) => Number(value) },
  })
  previousKeyUses!: number;

  @Column({ name: 'previous_key_last_used_at', type: 'timestamptz', nullable: true })
  previousKeyLastUsedAt!: Date | null;

  /** Local overrides in the stored form: path → lower-case methods (`[]` denies). */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  overrides!: Record<string, string[]>;

  /** While in the future, refused requests are forwarded and recorded as `learned` warnings. */
  @Column({ name: 'learning_until', type: 'timestamptz', nullable: true })
  learningUntil!: Date | null;

  /** Calls a minute on average (with `rateLimitBurst`); null: no limit. */
  @Column({ name: 'rate_limit_per_minute', type: 'integer', nullable: true })
  rateLimitPerMinute!: number | null;

  /** Calls at once; set together with `rateLimitPerMinute`. */
  @Column({ name: 'rate_limit_burst', type: 'integer', nullable: true })
  rateLimitBurst!: number | null;

  /** Whether responses have the upstream's key and address replaced (false: raw passthrough). */
  @Column({ type: 'boolean', default: true })
  scrub!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
