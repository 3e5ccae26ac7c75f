import {
  Column,
  CreateDateColumn,
  Entity,
  Index,
  JoinColumn,
  ManyToOne,
  PrimaryGeneratedColumn,
  UpdateDateColumn,
} from 'typeorm';
import { TemplateEntity } from '@arrbiter/server/templates/entities';

/** A client integration (Notifiarr, Overseerr, a script…): its proxies carry its keys. */
@Entity('app')
/** The admin list's order and keyset: by name, then id. */
@Index('IDX_app_name_id', ['name', 'id'])
export class AppEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 100 })
  name!: string;

  /** `{appSlug}` in `/proxy/{appSlug}/…`. */
  @Column({ type: 'varchar', length: 63, unique: true })
  slug!: string;

  /** The template whose blocks seed its proxies' allowlists; null for none. */
  @Index()
  @Column({ name: 'template_id', type: 'uuid', nullable: true })
  templateId!: string | null;

  @ManyToOne(() => TemplateEntity, { onDelete: 'RESTRICT' })
  @JoinColumn({ name: 'template_id' })
  template?: TemplateEntity | null;

  /**
   * The known client (catalogue id, `overseerr`) the app was connected as: a proxy's fit, its set-up
   * instructions and a declarative export default to it. Null for an app made by hand. Not a foreign
   * key: the catalogue is data in the build, not a table.
   */
  @Column({ name: 'known_client_id', type: 'text', nullable: true })
  knownClientId!: string | null;

  @Column({ type: 'boolean', default: true })
  active!: boolean;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
