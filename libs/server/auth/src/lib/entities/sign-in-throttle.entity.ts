import { Column, Entity, PrimaryColumn } from 'typeorm';

/**
 * The sign-in throttle's counters, shared by every replica: `rate-limiter-flexible`'s PostgreSQL store
 * reads and writes this table with its own statements (`key`, `points`, `expire` in epoch ms). Mapped
 * here so that the auth module owns it and the migrations create it.
 */
@Entity('sign_in_throttle')
export class SignInThrottleEntity {
  @PrimaryColumn({ type: 'varchar', length: 255 })
  key!: string;

  @Column({ type: 'integer', default: 0 })
  points!: number;

  @Column({ type: 'bigint', nullable: true })
  expire!: string | null;
}
