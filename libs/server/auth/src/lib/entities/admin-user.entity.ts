import type { AdminRole } from '@arrbiter/contracts';
import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, Unique, UpdateDateColumn } from 'typeorm';

/** A single sign-on identity is its issuer and subject together: one account at most per pair. */
export const OIDC_IDENTITY_CONSTRAINT = 'UQ_admin_user_oidc_identity';

@Entity('admin_user')
@Unique(OIDC_IDENTITY_CONSTRAINT, ['oidcIssuer', 'oidcSubject'])
export class AdminUserEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Stored lower-cased: usernames are case-insensitive. */
  @Column({ type: 'varchar', length: 64, unique: true })
  username!: string;

  /** argon2id hash in PHC string form; null: no password sign-in (an SSO or forward-auth account). */
  @Column({ name: 'password_hash', type: 'text', nullable: true })
  passwordHash!: string | null;

  /**
   * The account still signs in with a generated password (the first owner's, or one `reset-password`
   * made): the dashboard asks to choose one, and a non-owner may not use the admin API until then.
   */
  @Column({ name: 'password_generated', type: 'boolean', default: false })
  passwordGenerated!: boolean;

  /** `owner`, `editor` or `viewer`. */
  @Column({ type: 'varchar', length: 16 })
  role!: AdminRole;

  /**
   * The OpenID provider (`iss`) of the identity this account is linked to; with `oidcSubject`, the
   * identity. Null with a subject only on rows linked before issuers were recorded, until the server
   * binds them to the provider it discovers (`AccountsService.bindLegacyIdentities`).
   */
  @Column({ name: 'oidc_issuer', type: 'varchar', length: 255, nullable: true })
  oidcIssuer!: string | null;

  /** The provider's subject (`sub`) this account is linked to: null until it is linked. */
  @Column({ name: 'oidc_subject', type: 'varchar', length: 255, nullable: true })
  oidcSubject!: string | null;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
