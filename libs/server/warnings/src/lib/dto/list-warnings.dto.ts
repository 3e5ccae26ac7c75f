import type { WarningStatus } from '@arrbiter/contracts';
import { PageQueryDto } from '@arrbiter/server/http';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

export const WARNING_STATUSES: readonly WarningStatus[] = ['open', 'granted', 'dismissed', 'learned', 'rate-limited'];

export class ListWarningsDto extends PageQueryDto {
  @IsOptional()
  @IsUUID()
  proxyId?: string;

  @IsOptional()
  @IsUUID()
  appId?: string;

  @IsOptional()
  @IsIn(WARNING_STATUSES)
  status?: WarningStatus;

  /** Part of the route, the shape or the sample path, any case. */
  @IsOptional()
  @MaxLength(200)
  @IsString()
  q?: string;
}
