import type { ApplyFitRequest, NamedCall } from '@arrbiter/contracts';
import { HTTP_METHODS, MAX_ROUTE_PATH_LENGTH, SERVICE_TYPE } from '@arrbiter/server/catalog';
import { Transform, Type } from 'class-transformer';
import {
  ArrayMaxSize,
  IsArray,
  IsBoolean,
  IsIn,
  IsInt,
  IsOptional,
  IsString,
  Matches,
  Max,
  MaxLength,
  Min,
  ValidateNested,
} from 'class-validator';

/** A known client's id: lower case, as its file is named. */
export const KNOWN_CLIENT_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const CLIENT_ID_MESSAGE = 'client must be a known client id such as maintainerr (GET /api/admin/v1/known-clients)';
/** The longest period `unusedDays` may name. */
export const MAX_UNUSED_DAYS = 365;
/** Calls one request may name (include.sensitive, revoke). */
export const MAX_NAMED_CALLS = 500;

export class FitQueryDto {
  /** The known client (by default the one written for the app's or the template's template). */
  @IsOptional()
  @Matches(KNOWN_CLIENT_ID, { message: CLIENT_ID_MESSAGE })
  @IsString()
  client?: string;
}

export class ProxyFitQueryDto extends FitQueryDto {
  /** Unused = not in the client's catalogue AND not called through the proxy for this many days. */
  @IsOptional()
  @Type(() => Number)
  @IsInt()
  @Min(1)
  @Max(MAX_UNUSED_DAYS)
  unusedDays?: number;
}

export class SuggestedTemplateQueryDto extends FitQueryDto {
  /** Only this service type's block, as the community repository's file `<serviceType>/<name>.json`. */
  @IsOptional()
  @Matches(SERVICE_TYPE, { message: 'serviceType must be a lower-case service type such as radarr' })
  @IsString()
  serviceType?: string;

  /** Add the client's missing sensitive calls too (left out by default). */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  includeSensitive?: boolean;
}

/** A call named for a grant or a revoke: method and route as the allowlist (or the fit) writes it. */
export class FitNamedCallDto implements NamedCall {
  @IsIn(HTTP_METHODS)
  method!: string;

  @IsString()
  @MaxLength(MAX_ROUTE_PATH_LENGTH)
  @Matches(/^\//, { message: 'route must be a path starting with /' })
  route!: string;
}

export class IncludeSensitiveDto {
  @IsArray()
  @ArrayMaxSize(MAX_NAMED_CALLS)
  @ValidateNested({ each: true })
  @Type(() => FitNamedCallDto)
  sensitive!: FitNamedCallDto[];
}

export class ApplyFitDto implements ApplyFitRequest {
  @Matches(KNOWN_CLIENT_ID, { message: CLIENT_ID_MESSAGE })
  @IsString()
  client!: string;

  /** Grant the client's missing calls that are not sensitive, plus those `include.sensitive` names. */
  @IsBoolean()
  grantMissing!: boolean;

  @IsOptional()
  @ValidateNested()
  @Type(() => IncludeSensitiveDto)
  include?: IncludeSensitiveDto;

  /** Revoke exactly these grants; each must be unused for `unusedDays` (else 409, nothing changes). */
  @IsOptional()
  @IsArray()
  @ArrayMaxSize(MAX_NAMED_CALLS)
  @ValidateNested({ each: true })
  @Type(() => FitNamedCallDto)
  revoke?: FitNamedCallDto[];

  /** 1–365, default 30. */
  @IsOptional()
  @IsInt()
  @Min(1)
  @Max(MAX_UNUSED_DAYS)
  unusedDays?: number;
}
