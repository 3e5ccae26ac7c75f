import type { AdminRole } from '@arrbiter/contracts';
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('admin_user')
export class AdminUserEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Stored lower-cased: usernames are case-insensitive. */
  @Column({ type: 'varchar', length: 64, unique: true })
  username!: string;

  /** argon2id hash in PHC string form; null: no password sign-in (an SSO or forward-auth account). */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash!: string | null;

  /** `owner`, `editor` or `viewer`. */
  @Column({ type: 'varchar', length: 16 })
  role!: AdminRole;

  /** The OpenID provider's subject (`sub`) this account is linked to, after its first SSO sign-in. */
  @Column({ name: 'oidc_subject', type: 'varchar', length: 255, nullable: true, unique: true })
  oidcSubject!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
