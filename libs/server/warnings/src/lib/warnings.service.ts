import { Injectable } from '@nestjs/common';
import type { Page, WarningDto } from '@arrbiter/contracts';
import { decodeCursor, DEFAULT_PAGE_SIZE, encodeCursor } from '@arrbiter/server/http';
import { DataSource, Repository } from 'typeorm';
import { ListWarningsDto } from './dto/list-warnings.dto';
import { AccessWarningEntity } from './entities/access-warning.entity';

export function toWarningDto(w: AccessWarningEntity): WarningDto {
  return {
    id: w.id,
    proxyId: w.proxyId,
    appId: w.appId,
    method: w.method,
    path: w.path,
    route: w.route,
    count: w.count,
    firstSeen: w.firstSeen.toISOString(),
    lastSeen: w.lastSeen.toISOString(),
    status: w.status,
  };
}

@Injectable()
export class WarningsService {
  private readonly warnings: Repository<AccessWarningEntity>;

  constructor(dataSource: DataSource) {
    this.warnings = dataSource.getRepository(AccessWarningEntity);
  }

  /** Newest first (by last seen), filtered, a page at a time. */
  async list(query: ListWarningsDto): Promise<Page<WarningDto>> {
    const limit = query.limit ?? DEFAULT_PAGE_SIZE;
    const cursor = decodeCursor(query.cursor);
    const qb = this.warnings
      .createQueryBuilder('w')
      .orderBy('w.last_seen', 'DESC')
      .addOrderBy('w.id', 'DESC')
      .take(limit + 1);
    if (query.proxyId) qb.andWhere('w.proxy_id = :proxyId', { proxyId: query.proxyId });
    if (query.appId) qb.andWhere('w.app_id = :appId', { appId: query.appId });
    if (query.status) qb.andWhere('w.status = :status', { status: query.status });
    if (cursor) qb.andWhere('(w.last_seen, w.id) < (:at, :id)', { at: cursor.at, id: cursor.id });
    const rows = await qb.getMany();
    const items = rows.slice(0, limit);
    const last = items.at(-1);
    return {
      items: items.map(toWarningDto),
      nextCursor: rows.length > limit && last ? encodeCursor({ at: last.lastSeen.toISOString(), id: last.id }) : null,
    };
  }
}
