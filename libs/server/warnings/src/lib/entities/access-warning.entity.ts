import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import type { WarningStatus } from '@arrbiter/contracts';
import { ProxyEntity } from '@arrbiter/server/proxies/entities';

/** Refused requests of one proxy, aggregated per (method, resolved route or canonical path). */
@Entity('access_warning')
@Unique('UQ_access_warning_key', ['proxyId', 'method', 'routeKey'])
@Index('IDX_access_warning_last_seen', ['lastSeen', 'id'])
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

  /** Canonical path of the latest refused request (never its query). */
  @Column({ type: 'varchar', length: 2048 })
  path!: string;

  /** The route it resolved to, null when none. */
  @Column({ type: 'varchar', length: 512, nullable: true })
  route!: string | null;

  /** What warnings are aggregated by: the route's shape, or the path when there is no route. */
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
}
