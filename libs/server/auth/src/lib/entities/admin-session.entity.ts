import { Column, Entity, Generated, Index, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import { AdminUserEntity } from './admin-user.entity';

/** A signed-in administrator. The cookie holds a random token; only its SHA-256 digest is stored. */
@Entity('admin_session')
export class AdminSessionEntity {
  /** Hex SHA-256 of the session token. */
  @PrimaryColumn({ type: 'char', length: 64 })
  id!: string;

  /** The session's public id (sessions list, `DELETE /api/auth/sessions/:id`): never the token's digest. */
  @Index({ unique: true })
  @Column({ type: 'uuid' })
  @Generated('uuid')
  ref!: string;

  @Index()
  @Column({ name: 'admin_user_id', type: 'uuid' })
  adminUserId!: string;

  @ManyToOne(() => AdminUserEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'admin_user_id' })
  adminUser?: AdminUserEntity;

  @Column({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @Column({ name: 'last_seen_at', type: 'timestamptz' })
  lastSeenAt!: Date;

  @Index()
  @Column({ name: 'expires_at', type: 'timestamptz' })
  expiresAt!: Date;

  @Column({ name: 'user_agent', type: 'varchar', length: 256, nullable: true })
  userAgent!: string | null;

  /** The client address the session was last seen from. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  address!: string | null;
}
