import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { WarningStatus } from '@arrbiter/contracts';
import { ProxyEntity } from '@arrbiter/server/proxies/entities';

/** Refused requests of one proxy, aggregated per (method, resolved route or canonical path). */
@Entity('access_warning')
@Unique('UQ_access_warning_key', ['proxyId', 'method', 'routeKey'])
@Index('IDX_access_warning_last_seen', ['lastSeen', 'id'])
@Index('IDX_access_warning_first_seen', ['firstSeen', 'id'])
@Index('IDX_access_warning_count', ['count', 'id'])
export class AccessWarningEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'proxy_id', type: 'uuid' })
  proxyId!: string;

  @ManyToOne(() => ProxyEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'proxy_id' })
  proxy?: ProxyEntity;

  @Index()
  @Column({ name: 'app_id', type: 'uuid' })
  appId!: string;

  /** Lower case. */
  @Column({ type: 'varchar', length: 10 })
  method!: string;

  /**
   * Canonical path of the latest refused request (never its query): the row's sample, cut to 512
   * characters and ending with `…` when longer (`samplePath`).
   */
  @Column({ type: 'varchar', length: 2048 })
  path!: string;

  /** The route it resolved to, null when none. */
  @Column({ type: 'varchar', length: 512, nullable: true })
  route!: string | null;

  /**
   * What warnings are aggregated by: the route's shape, the bounded shape of a path that matches no
   * route (`unknownPathShape`), `(rate limit)`, or `(other paths)`.
   */
  @Column({ name: 'route_key', type: 'varchar', length: 2048 })
  routeKey!: string;

  @Column({ type: 'integer' })
  count!: number;

  @Column({ name: 'first_seen', type: 'timestamptz' })
  firstSeen!: Date;

  @Column({ name: 'last_seen', type: 'timestamptz' })
  lastSeen!: Date;

  @Column({ type: 'varchar', length: 16, default: 'open' })
  status!: WarningStatus;

  /**
   * The proxy's "other paths" row (method `*`): calls refused past its `WARNING_ROWS_PER_PROXY`
   * distinct rows, counted together. Never granted.
   */
  @Column({ name: 'other_paths', type: 'boolean', default: false })
  otherPaths!: boolean;
}
