import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable, NotFoundException } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { AllowlistMap, Page, RevisionDto, RevisionKind, RevisionSummary } from '@arrbiter/contracts';
import { Clock } from '@arrbiter/server/config';
import { keysetPage, PageQueryDto } from '@arrbiter/server/http';
import { Repository } from 'typeorm';
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

/** A stored revision as the other domains read it (the entity class stays inside this lib). */
export type RevisionRow = Omit<RevisionEntity, 'proxy'>;

export function toRevisionDto(revision: RevisionRow): RevisionDto {
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

/**
 * Proxies' revisions: recorded in the change's own transaction (the `TransactionHost` transaction the
 * caller runs in), listed newest first.
 */
@Injectable()
export class RevisionsService {
  constructor(
    @InjectRepository(RevisionEntity) private readonly revisions: Repository<RevisionEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /** The repository, inside the caller's transaction when there is one. */
  private get repository(): Repository<RevisionEntity> {
    return this.txHost.tx.withRepository(this.revisions);
  }

  async record(record: RevisionRecord): Promise<RevisionRow> {
    const repository = this.repository;
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
    const qb = this.repository.createQueryBuilder('r').where('r.proxy_id = :proxyId', { proxyId });
    return keysetPage(qb, { column: 'r.created_at', idColumn: 'r.id', at: (r) => r.createdAt }, query, toRevisionDto);
  }

  /** One revision of one proxy, or 404. */
  async find(proxyId: string, revisionId: string): Promise<RevisionRow> {
    const revision = await this.repository.findOneBy({ id: revisionId, proxyId });
    if (!revision) throw new NotFoundException('No such revision of this proxy');
    return revision;
  }
}
