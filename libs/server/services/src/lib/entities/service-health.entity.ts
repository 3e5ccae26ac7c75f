import { Column, Entity, JoinColumn, OneToOne, PrimaryColumn } from 'typeorm';
import { ServiceEntity } from './service.entity';

/** What the periodic reachability check last found of a service (one row per service, once checked). */
@Entity('service_health')
export class ServiceHealthEntity {
  @PrimaryColumn({ name: 'service_id', type: 'uuid' })
  serviceId!: string;

  @OneToOne(() => ServiceEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'service_id' })
  service?: ServiceEntity;

  /** Whether its status endpoint answered 200 with its key. */
  @Column({ type: 'boolean' })
  reachable!: boolean;

  /** Why not, when it did not. */
  @Column({ type: 'varchar', length: 300, nullable: true })
  error!: string | null;

  @Column({ name: 'checked_at', type: 'timestamptz' })
  checkedAt!: Date;

  /** Since when it has been reachable (or not). */
  @Column({ type: 'timestamptz' })
  since!: Date;
}
