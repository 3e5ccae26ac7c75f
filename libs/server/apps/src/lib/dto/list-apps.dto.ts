import { BadRequestException } from '@nestjs/common';
import type { AppState, ListAppsQuery } from '@arrbiter/contracts';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min } from 'class-validator';

export const APP_STATES: readonly AppState[] = ['active', 'inactive'];

/** `templateId=none`: apps without a template. */
export const NO_TEMPLATE = 'none';

/** A uuid of any version (as `@IsUUID()` accepts), or `none`. */
const TEMPLATE_FILTER = /^(none|[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12})$/;

/** `GET /api/admin/v1/apps?limit=&cursor=&q=&templateId=&state=`. */
export class ListAppsDto implements ListAppsQuery {
  @IsOptional()
  @Type(() => Number)
  @Max(200)
  @Min(1)
  @IsInt()
  limit?: number;

  /** Longer than other lists' cursors: it carries an app name (≤ 100 characters of any script). */
  @IsOptional()
  @MaxLength(1000)
  @IsString()
  cursor?: string;

  @IsOptional()
  @MaxLength(100)
  @IsString()
  q?: string;

  @IsOptional()
  @Matches(TEMPLATE_FILTER, { message: 'templateId must be a UUID or "none"' })
  @IsString()
  templateId?: string;

  @IsOptional()
  @IsIn(APP_STATES)
  state?: AppState;
}

/** Where a page of apps continues: after this name and id. */
export interface AppCursor {
  name: string;
  id: string;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function encodeAppCursor(cursor: AppCursor): string {
  return Buffer.from(JSON.stringify([cursor.name, cursor.id]), 'utf8').toString('base64url');
}

/** The cursor, or 400 for anything this API did not hand out. */
export function decodeAppCursor(value: string | undefined): AppCursor | undefined {
  if (value === undefined) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(Buffer.from(value, 'base64url').toString('utf8'));
  } catch {
    parsed = undefined;
  }
  if (
    !Array.isArray(parsed) ||
    parsed.length !== 2 ||
    typeof parsed[0] !== 'string' ||
    parsed[0].length === 0 ||
    // The name column's 100 are characters (code points), not UTF-16 units.
    [...parsed[0]].length > 100 ||
    typeof parsed[1] !== 'string' ||
    !UUID.test(parsed[1])
  ) {
    throw new BadRequestException('cursor is not a cursor this API returned');
  }
  return { name: parsed[0], id: parsed[1] };
}

/** `q` as a LIKE pattern matching it anywhere, with `\`, `%` and `_` taken literally. */
export function containsPattern(q: string): string {
  return `%${q.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
