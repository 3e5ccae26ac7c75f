import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';

/** An upstream Servarr instance. */
@Entity('service')
export class ServiceEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  /** The upstream's `instanceName`. */
  @Column({ type: 'varchar', length: 128 })
  name!: string;

  /** The upstream's `appName`, lower case (`sonarr`). */
  @Column({ type: 'varchar', length: 32 })
  type!: string;

  /** Normalised base URL including the URL base, without a trailing slash. */
  @Column({ name: 'base_url', type: 'varchar', length: 2048, unique: true })
  baseUrl!: string;

  /** The upstream's API key, AES-GCM encrypted under SECRET_KEY. */
  @Column({ name: 'api_key_ciphertext', type: 'text' })
  apiKeyCiphertext!: string;

  /** API versions served, current first. */
  @Column({ name: 'api_versions', type: 'jsonb' })
  apiVersions!: string[];

  @Column({ name: 'upstream_version', type: 'varchar', length: 64 })
  upstreamVersion!: string;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
