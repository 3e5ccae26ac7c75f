import type { ListWarningsQuery, WarningSort, WarningStatus } from '@arrbiter/contracts';
import { Type } from 'class-transformer';
import { IsIn, IsInt, IsOptional, IsString, IsUUID, Max, MaxLength, Min } from 'class-validator';

export const WARNING_STATUSES: readonly WarningStatus[] = ['open', 'granted', 'dismissed', 'learned', 'rate-limited'];
export const WARNING_SORTS: readonly WarningSort[] = ['lastSeen', 'firstSeen', 'count', 'app'];

/**
 * `GET /api/admin/v1/warnings`: filters, a server-side order and keyset paging. The cursor is longer
 * than other lists' (`PageQueryDto`): sorted by app, it carries an app name.
 */
export class ListWarningsDto implements ListWarningsQuery {
  @IsOptional()
  @IsUUID()
  proxyId?: string;

  @IsOptional()
  @IsUUID()
  appId?: string;

  @IsOptional()
  @IsIn(WARNING_STATUSES)
  status?: WarningStatus;

  /** `lastSeen` by default. */
  @IsOptional()
  @IsIn(WARNING_SORTS)
  sort?: WarningSort;

  /** `desc` by default. */
  @IsOptional()
  @IsIn(['asc', 'desc'])
  order?: 'asc' | 'desc';

  /** Part of the route, the shape or the sample path, any case. */
  @IsOptional()
  @MaxLength(200)
  @IsString()
  q?: string;

  @IsOptional()
  @Type(() => Number)
  @Max(200)
  @Min(1)
  @IsInt()
  limit?: number;

  @IsOptional()
  @MaxLength(1000)
  @IsString()
  cursor?: string;
}
