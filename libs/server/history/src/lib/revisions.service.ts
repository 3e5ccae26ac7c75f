import { Injectable, NotFoundException } from '@nestjs/common';
import type { AllowlistMap, Page, RevisionDto, RevisionKind, RevisionSummary } from '@arrbiter/contracts';
import { Clock } from '@arrbiter/server/config';
import { keysetPage, PageQueryDto } from '@arrbiter/server/http';
import { DataSource, EntityManager } from 'typeorm';
import { RevisionEntity } from './entities/revision.entity';

export interface RevisionRecord {
  proxyId: string;
  kind: RevisionKind;
  overrides: AllowlistMap;
  active: boolean;
  author: string;
  summary: RevisionSummary;
  restoredFrom?: string | null;
}

export function toRevisionDto(revision: RevisionEntity): RevisionDto {
  return {
    id: revision.id,
    proxyId: revision.proxyId,
    kind: revision.kind,
    overrides: revision.overrides,
    active: revision.active,
    author: revision.author,
    createdAt: revision.createdAt.toISOString(),
    summary: revision.summary,
    restoredFrom: revision.restoredFrom,
  };
}

/** Proxies' revisions: recorded in the change's own transaction, listed newest first. */
@Injectable()
export class RevisionsService {
  constructor(
    private readonly dataSource: DataSource,
    private readonly clock: Clock,
  ) {}

  async record(record: RevisionRecord, manager: EntityManager = this.dataSource.manager): Promise<RevisionEntity> {
    const repository = manager.getRepository(RevisionEntity);
    return repository.save(
      repository.create({
        proxyId: record.proxyId,
        kind: record.kind,
        overrides: record.overrides,
        active: record.active,
        author: record.author.slice(0, 100),
        summary: record.summary,
        restoredFrom: record.restoredFrom ?? null,
        createdAt: this.clock.stamp(),
      }),
    );
  }

  async list(proxyId: string, query: PageQueryDto): Promise<Page<RevisionDto>> {
    const qb = this.dataSource
      .getRepository(RevisionEntity)
      .createQueryBuilder('r')
      .where('r.proxy_id = :proxyId', { proxyId });
    return keysetPage(qb, { column: 'r.created_at', idColumn: 'r.id', at: (r) => r.createdAt }, query, toRevisionDto);
  }

  /** One revision of one proxy, or 404. */
  async find(
    proxyId: string,
    revisionId: string,
    manager: EntityManager = this.dataSource.manager,
  ): Promise<RevisionEntity> {
    const revision = await manager.getRepository(RevisionEntity).findOneBy({ id: revisionId, proxyId });
    if (!revision) throw new NotFoundException('No such revision of this proxy');
    return revision;
  }
}
