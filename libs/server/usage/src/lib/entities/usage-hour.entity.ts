import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ProxyEntity } from '@arrbiter/server/proxies/entities';

/**
 * One proxy's calls in one hour: written behind by `UsageRecorder`, whose upserts add to
 * the counts, so that replicas sharing one database add up. Kept `USAGE_RETENTION_DAYS`.
 */
@Entity('usage_hour')
@Index('IDX_usage_hour_hour', ['hour'])
export class UsageHourEntity {
  @PrimaryColumn({ name: 'proxy_id', type: 'uuid' })
  proxyId!: string;

  /** The start of the hour (UTC, on the hour). */
  @PrimaryColumn({ type: 'timestamptz' })
  hour!: Date;

  @ManyToOne(() => ProxyEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'proxy_id' })
  proxy?: ProxyEntity;

  /** The proxy's app and service (a proxy never changes either): totals per app and per service. */
  @Column({ name: 'app_id', type: 'uuid' })
  appId!: string;

  @Column({ name: 'service_id', type: 'uuid' })
  serviceId!: string;

  /** Calls the allowlist let through (or learning mode), whatever the upstream answered. */
  @Column({ type: 'integer', default: 0 })
  forwarded!: number;

  /** Calls of this proxy's key that were refused: 403 (allowlist), 429 (rate limit), 400 (bad path). */
  @Column({ type: 'integer', default: 0 })
  refused!: number;

  /** Of the forwarded calls, those answered 5xx: the upstream's own, or the gateway's 502/504. */
  @Column({ type: 'integer', default: 0 })
  errors!: number;
}
