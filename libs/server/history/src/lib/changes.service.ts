import { TransactionHost } from '@nestjs-cls/transactional';
import { TransactionalAdapterTypeOrm } from '@nestjs-cls/transactional-adapter-typeorm';
import { Injectable } from '@nestjs/common';
import { InjectRepository } from '@nestjs/typeorm';
import type { ChangeDto, ChangeObjectType, Page } from '@arrbiter/contracts';
import { Clock } from '@arrbiter/server/config';
import { keysetPage } from '@arrbiter/server/http';
import { Repository } from 'typeorm';
import { ListChangesDto } from './dto/list-changes.dto';
import { ChangeEntity } from './entities/change.entity';

/** Who made a change: an admin's username, or `system` for what the server does by itself. */
export const SYSTEM_ACTOR = 'system';

/** One entry of the audit trail, as a domain records it. */
export interface ChangeRecord {
  actor: string;
  /** `<object>.<verb>`: `service.created`, `proxy.key-rotated`, … */
  action: string;
  objectType: ChangeObjectType;
  objectId?: string | null;
  objectName?: string | null;
  appId?: string | null;
  summary: string;
}

export function toChangeDto(change: ChangeEntity): ChangeDto {
  return {
    id: change.id,
    at: change.at.toISOString(),
    actor: change.actor,
    action: change.action,
    objectType: change.objectType,
    objectId: change.objectId,
    objectName: change.objectName,
    appId: change.appId,
    summary: change.summary,
  };
}

/** Sign-ins and sign-outs: the changes `?signIns=false` leaves out. */
export const SESSION_ACTIONS = ['session.signed-in', 'session.signed-out'];

/**
 * The audit trail of admin writes: recorded in the write's own transaction (the `TransactionHost`
 * transaction the caller runs in), listed newest first.
 */
@Injectable()
export class ChangesService {
  constructor(
    @InjectRepository(ChangeEntity) private readonly changes: Repository<ChangeEntity>,
    private readonly txHost: TransactionHost<TransactionalAdapterTypeOrm>,
    private readonly clock: Clock,
  ) {}

  /** Records a change in the caller's transaction (`TransactionHost`), so that both are stored or neither. */
  async record(change: ChangeRecord): Promise<void> {
    const changes = this.txHost.tx.withRepository(this.changes);
    await changes.insert({
      at: this.clock.stamp(),
      actor: change.actor.slice(0, 100),
      action: change.action,
      objectType: change.objectType,
      objectId: change.objectId ?? null,
      objectName: change.objectName?.slice(0, 200) ?? null,
      appId: change.appId ?? null,
      summary: change.summary.slice(0, 1000),
    });
  }

  async list(query: ListChangesDto): Promise<Page<ChangeDto>> {
    const qb = this.txHost.tx.withRepository(this.changes).createQueryBuilder('c');
    if (query.objectType) qb.andWhere('c.object_type = :objectType', { objectType: query.objectType });
    if (query.objectId) qb.andWhere('c.object_id = :objectId', { objectId: query.objectId });
    if (query.appId) qb.andWhere('c.app_id = :appId', { appId: query.appId });
    if (query.actor) qb.andWhere('c.actor = :actor', { actor: query.actor });
    if (query.signIns === false)
      qb.andWhere('c.action NOT IN (:...sessionActions)', { sessionActions: SESSION_ACTIONS });
    return keysetPage(qb, { column: 'c.at', idColumn: 'c.id', at: (c) => c.at }, query, toChangeDto);
  }
}
