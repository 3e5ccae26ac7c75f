import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** A server-wide setting an admin can change (JSON value by key). */
@Entity('setting')
export class SettingEntity {
  @PrimaryColumn({ type: 'varchar', length: 100 })
  key!: string;

  @Column({ type: 'jsonb' })
  value!: unknown;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
