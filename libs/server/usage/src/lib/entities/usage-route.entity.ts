import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { ProxyEntity } from '@arrbiter/server/proxies/entities';

/** Longest route kept; a longer one (a path no route matched) is cut. */
export const MAX_ROUTE_LENGTH = 512;

/**
 * One proxy's calls of one method on one route in one hour: the resolved route as the catalog or the
 * allowlist writes it (`/api/v3/movie/{id}`), or the canonical path when no route matched.
 */
@Entity('usage_route')
@Index('IDX_usage_route_hour', ['hour'])
export class UsageRouteEntity {
  @PrimaryColumn({ name: 'proxy_id', type: 'uuid' })
  proxyId!: string;

  @PrimaryColumn({ type: 'timestamptz' })
  hour!: Date;

  /** Lower case. */
  @PrimaryColumn({ type: 'varchar', length: 10 })
  method!: string;

  @PrimaryColumn({ type: 'varchar', length: MAX_ROUTE_LENGTH })
  route!: string;

  @ManyToOne(() => ProxyEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'proxy_id' })
  proxy?: ProxyEntity;

  @Column({ type: 'integer' })
  count!: number;

  /** The last call in that hour. */
  @Column({ name: 'last_seen', type: 'timestamptz' })
  lastSeen!: Date;
}
