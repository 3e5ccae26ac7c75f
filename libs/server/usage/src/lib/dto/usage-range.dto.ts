import type { UsageQuery } from '@arrbiter/contracts';
import { IsISO8601, IsOptional, IsUUID } from 'class-validator';

const FORMAT = 'an ISO 8601 date, or date and time with an offset, such as 2026-01-31T00:00:00Z';

/** `?from=&to=` of the usage endpoints (checked further by `UsageService.range`). */
export class UsageRangeDto implements UsageQuery {
  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: `from must be ${FORMAT}` })
  from?: string;

  @IsOptional()
  @IsISO8601({ strict: true, strictSeparator: true }, { message: `to must be ${FORMAT}` })
  to?: string;
}

/** `?from=&to=&appId=` of `GET /api/admin/v1/usage/unauthorized`. */
export class UnauthorizedQueryDto extends UsageRangeDto {
  @IsOptional()
  @IsUUID('all', { message: 'appId must be an app id (a UUID)' })
  appId?: string;
}

/** Why a `from`/`to` value that passed the format check cannot be used as an instant, or undefined. */
export function instantProblem(name: 'from' | 'to', value: string): string | undefined {
  if (Number.isNaN(Date.parse(value))) return `${name} must be ${FORMAT} (week and ordinal dates are not accepted)`;
  if (value.includes('T') && !/(Z|[+-]\d{2}(:?\d{2})?)$/i.test(value))
    return `${name} must give its time zone (Z or an offset such as +02:00) when it has a time`;
  return undefined;
}
