import { Column, CreateDateColumn, Entity, PrimaryGeneratedColumn, UpdateDateColumn } from 'typeorm';
import type { AllowlistMap } from '@arrbiter/contracts';

/** A named set of grants, one override-form block per service type. */
@Entity('template')
export class TemplateEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'varchar', length: 100, unique: true })
  name!: string;

  /** `repository`: synced; `local`: saved by an admin, never touched by a sync. */
  @Column({ type: 'varchar', length: 16 })
  source!: 'repository' | 'local';

  /** Gone from the repository, kept while apps use it. */
  @Column({ type: 'boolean', default: false })
  removed!: boolean;

  /** Service type → override-form block. */
  @Column({ type: 'jsonb', default: () => "'{}'" })
  blocks!: Record<string, AllowlistMap>;

  @CreateDateColumn({ name: 'created_at', type: 'timestamptz' })
  createdAt!: Date;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
