import type { WarningStatus } from '@arrbiter/contracts';
import { PageQueryDto } from '@arrbiter/server/http';
import { IsIn, IsOptional, IsUUID } from 'class-validator';

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
}
