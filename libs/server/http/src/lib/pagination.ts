import { BadRequestException } from '@nestjs/common';
import type { Page } from '@arrbiter/contracts';
import type { ObjectLiteral, SelectQueryBuilder } from 'typeorm';
import { Type } from 'class-transformer';
import { IsInt, IsOptional, IsString, Max, MaxLength, Min } from 'class-validator';

/** `?limit=&cursor=` on every list. */
export class PageQueryDto {
  @IsOptional()
  @Type(() => Number)
  @Max(200)
  @Min(1)
  @IsInt()
  limit?: number;

  @IsOptional()
  @MaxLength(200)
  @IsString()
  cursor?: string;
}

export const DEFAULT_PAGE_SIZE = 50;

/** A keyset cursor: the sort value and id of the last item of a page. */
export interface Cursor {
  at: string;
  id: string;
}

export function encodeCursor(cursor: Cursor): string {
  return Buffer.from(`${cursor.at}|${cursor.id}`, 'utf8').toString('base64url');
}

export function decodeCursor(value: string | undefined): Cursor | undefined {
  if (value === undefined) return undefined;
  const [at, id] = Buffer.from(value, 'base64url').toString('utf8').split('|');
  if (!at || !id || Number.isNaN(Date.parse(at)) || !/^[0-9a-f-]{36}$/.test(id)) {
    throw new BadRequestException('cursor is not a cursor this API returned');
  }
  return { at, id };
}

/** The sort column of a keyset-paged list (newest first) and how to read it from a row. */
export interface KeysetOrder<E> {
  /** SQL expression of the time column, e.g. `w.last_seen`. */
  column: string;
  /** SQL expression of the id column, e.g. `w.id`. */
  idColumn: string;
  at: (row: E) => Date;
}

/**
 * One page of a list ordered newest first by (time, id), continued from `query.cursor`; the
 * `nextCursor` is null on the last page.
 */
export async function keysetPage<E extends ObjectLiteral, D>(
  qb: SelectQueryBuilder<E>,
  order: KeysetOrder<E>,
  query: PageQueryDto,
  toDto: (row: E) => D,
): Promise<Page<D>> {
  const limit = query.limit ?? DEFAULT_PAGE_SIZE;
  const cursor = decodeCursor(query.cursor);
  qb.orderBy(order.column, 'DESC')
    .addOrderBy(order.idColumn, 'DESC')
    .take(limit + 1);
  if (cursor)
    qb.andWhere(`(${order.column}, ${order.idColumn}) < (:cursorAt, :cursorId)`, {
      cursorAt: cursor.at,
      cursorId: cursor.id,
    });
  const rows = await qb.getMany();
  const items = rows.slice(0, limit);
  const last = items.at(-1);
  return {
    items: items.map(toDto),
    nextCursor:
      rows.length > limit && last ? encodeCursor({ at: order.at(last).toISOString(), id: String(last['id']) }) : null,
  };
}
