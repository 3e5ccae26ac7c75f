import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

@Entity('admin_user')
export class AdminUserEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** Stored lower-cased: usernames are case-insensitive. */
  @Column({ type: 'varchar', length: 64, unique: true })
  username!: string;

  /** argon2id hash in PHC string form. */
  @Column({ name: 'password_hash', type: 'text' })
  passwordHash!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
