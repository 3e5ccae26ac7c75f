import type { AdminRole } from '@arrbiter/contracts';
import { Column, Entity, Index, JoinColumn, ManyToOne, PrimaryGeneratedColumn, Unique } from 'typeorm';
import { AdminUserEntity } from './admin-user.entity';

/**
 * An API token for automation: `Authorization: Bearer arb_…` on `/api/admin/v1/*`. Only its SHA-256
 * digest is stored; it acts with its own role, capped by its creator's current role, and ends with
 * its creator's account.
 */
@Entity('api_token')
@Unique('UQ_api_token_owner_name', ['adminUserId', 'name'])
export class ApiTokenEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 64 })
  name!: string;

  @Column({ type: 'varchar', length: 16 })
  role!: AdminRole;

  /** Hex SHA-256 of the token. */
  @Index({ unique: true })
  @Column({ type: 'char', length: 64 })
  digest!: string;

  @Index()
  @Column({ name: 'admin_user_id', type: 'uuid' })
  adminUserId!: string;

  @ManyToOne(() => AdminUserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'admin_user_id' })
  adminUser?: AdminUserEntity;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'expires_at', type: 'timestamptz', nullable: true })
  expiresAt!: Date | null;

  @Column({ name: 'last_used_at', type: 'timestamptz', nullable: true })
  lastUsedAt!: Date | null;
}
