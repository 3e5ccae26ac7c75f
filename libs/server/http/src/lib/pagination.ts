import { BadRequestException } from '@nestjs/common';
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
