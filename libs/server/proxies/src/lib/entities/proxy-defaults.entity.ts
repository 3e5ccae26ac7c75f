import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** What a new proxy starts with (one row, id 1): a rate limit or none, and whether responses are scrubbed. */
@Entity('proxy_defaults')
export class ProxyDefaultsEntity {
  @PrimaryColumn({ type: 'smallint' })
  id!: number;

  @Column({ name: 'rate_limit_per_minute', type: 'integer', nullable: true })
  rateLimitPerMinute!: number | null;

  @Column({ name: 'rate_limit_burst', type: 'integer', nullable: true })
  rateLimitBurst!: number | null;

  @Column({ type: 'boolean', default: true })
  scrub!: boolean;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
