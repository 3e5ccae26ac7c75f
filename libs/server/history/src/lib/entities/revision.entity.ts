import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn } from 'typeorm';
import type { AllowlistMap, RevisionKind, RevisionSummary } from '@arrbiter/contracts';

/**
 * One change of a proxy's overrides or active state, as it was after the change. The proxy is named by
 * entity name (not imported): the proxies domain records revisions, so it depends on this one.
 */
@Entity('revision')
@Index('IDX_revision_proxy_created', ['proxyId', 'createdAt', 'id'])
export class RevisionEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ name: 'proxy_id', type: 'uuid' })
  proxyId!: string;

  @ManyToOne('ProxyEntity', { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'proxy_id' })
  proxy?: unknown;

  @Column({ type: 'varchar', length: 16 })
  kind!: RevisionKind;

  @Column({ type: 'jsonb' })
  overrides!: AllowlistMap;

  @Column({ type: 'boolean' })
  active!: boolean;

  /** The admin's username, or `system`. */
  @Column({ type: 'varchar', length: 100 })
  author!: string;

  @Column({ type: 'jsonb' })
  summary!: RevisionSummary;

  @Column({ name: 'restored_from', type: 'uuid', nullable: true })
  restoredFrom!: string | null;

  /** Set from the server's clock (millisecond precision, as the list's cursor carries it). */
  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;
}
