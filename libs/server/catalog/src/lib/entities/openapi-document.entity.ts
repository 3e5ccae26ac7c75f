import { Column, Entity, PrimaryColumn, UpdateDateColumn } from 'typeorm';

/** The OpenAPI description of one API version of a service type (`sonarr`/`v5`). */
@Entity('openapi_document')
export class OpenApiDocumentEntity {
  @PrimaryColumn({ name: 'service_type', type: 'varchar', length: 32 })
  serviceType!: string;

  @PrimaryColumn({ name: 'api_version', type: 'varchar', length: 8 })
  apiVersion!: string;

  @Column({ type: 'jsonb' })
  document!: unknown;

  /** Where it came from: the upstream itself, an OPENAPI_SOURCES address, or an admin upload. */
  @Column({ type: 'varchar', length: 16 })
  source!: 'upstream' | 'source' | 'upload';

  @Column({ name: 'route_count', type: 'integer' })
  routeCount!: number;

  @UpdateDateColumn({ name: 'updated_at', type: 'timestamptz' })
  updatedAt!: Date;
}
