import { Column, Entity, JoinColumn, ManyToOne, PrimaryColumn } from 'typeorm';
import type { TemplateBlockChange } from '@arrbiter/contracts';
import { TemplateEntity } from '@arrbiter/server/templates/entities';

/**
 * A widening of a template some app uses, synced from the repository and held until an editor applies
 * or dismisses it: one per template, replaced by a newer sync, gone with its template.
 */
@Entity('pending_template_change')
export class PendingTemplateChangeEntity {
  @PrimaryColumn({ name: 'template_id', type: 'uuid' })
  templateId!: string;

  @ManyToOne(() => TemplateEntity, { onDelete: 'CASCADE' })
  @JoinColumn({ name: 'template_id' })
  template?: TemplateEntity;

  /** Per service type: the grants held (`added`) and what the same sync removed, applied at once (`removed`). */
  @Column({ type: 'jsonb' })
  blocks!: TemplateBlockChange[];

  /** The commit it came from (git), or null for a local directory. */
  @Column({ type: 'varchar', length: 64, nullable: true })
  commit!: string | null;

  @Column({ name: 'detected_at', type: 'timestamptz' })
  detectedAt!: Date;

  /** Set when an editor dismissed it: hidden, and not raised again until the repository changes it. */
  @Column({ name: 'dismissed_at', type: 'timestamptz', nullable: true })
  dismissedAt!: Date | null;

  @Column({ name: 'dismissed_by', type: 'varchar', length: 200, nullable: true })
  dismissedBy!: string | null;
}
