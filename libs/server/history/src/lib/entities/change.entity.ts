import { Column, Entity, Index, PrimaryGeneratedColumn } from 'typeorm';
import type { ChangeObjectType } from '@arrbiter/contracts';

/** One admin write (or system action) in the audit trail. Kept when its object is deleted. */
@Entity('change')
@Index('IDX_change_at', ['at', 'id'])
export class ChangeEntity {
  @PrimaryGeneratedColumn('uuid')
  id!: string;

  @Column({ type: 'timestamptz' })
  at!: Date;

  @Index()
  @Column({ type: 'varchar', length: 100 })
  actor!: string;

  @Column({ type: 'varchar', length: 64 })
  action!: string;

  @Column({ name: 'object_type', type: 'varchar', length: 16 })
  objectType!: ChangeObjectType;

  @Column({ name: 'object_id', type: 'uuid', nullable: true })
  objectId!: string | null;

  @Column({ name: 'object_name', type: 'varchar', length: 200, nullable: true })
  objectName!: string | null;

  @Column({ name: 'app_id', type: 'uuid', nullable: true })
  appId!: string | null;

  @Column({ type: 'varchar', length: 1000 })
  summary!: string;
}
