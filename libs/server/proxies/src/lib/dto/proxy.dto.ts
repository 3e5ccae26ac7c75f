import {
  AllowlistMap,
  CreateProxyRequest,
  MAX_GRACE_MINUTES,
  ProxyConfigRequest,
  ProxyDefaults,
  RateLimit,
  RotateKeyRequest,
  StartLearningRequest,
  UpdateProxyRequest,
} from '@arrbiter/contracts';
import { Type } from 'class-transformer';
import {
  IsBoolean,
  IsDefined,
  IsInt,
  IsISO8601,
  IsObject,
  IsOptional,
  IsString,
  IsUUID,
  Max,
  MaxLength,
  Min,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

export class CreateProxyDto implements CreateProxyRequest {
  @IsUUID()
  serviceId!: string;
}

export class UpdateProxyDto implements UpdateProxyRequest {
  @IsBoolean()
  active!: boolean;
}

export class RotateKeyDto implements RotateKeyRequest {
  /** How long the replaced key keeps working, in minutes (0, the default: it stops at once). Null is refused. */
  @ValidateIf((_dto, value) => value !== undefined)
  @IsInt()
  @Min(0)
  @Max(MAX_GRACE_MINUTES)
  graceMinutes?: number;
}

/**
 * The map's paths and methods are checked by `overrideProblems` (class-validator cannot see into maps),
 * on the raw body too (`RawOverridesCheck`): the validation pipe strips a `__proto__` key before any
 * check here could see it.
 */
export class RateLimitDto implements RateLimit {
  /** Up to 100 calls a second on average. */
  @IsInt()
  @Min(1)
  @Max(6000)
  perMinute!: number;

  @IsInt()
  @Min(1)
  @Max(1000)
  burst!: number;
}

export class ProxyConfigDto implements ProxyConfigRequest {
  @IsObject()
  overrides!: AllowlistMap;

  @IsBoolean()
  active!: boolean;

  /** Absent: unchanged; null: no limit. */
  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitDto)
  rateLimit?: RateLimitDto | null;

  @IsOptional()
  @IsBoolean()
  scrub?: boolean;
}

export class ProxyDefaultsDto implements ProxyDefaults {
  /** Null: new proxies have no limit. */
  @ValidateIf((_dto, value) => value !== null)
  @IsDefined()
  @ValidateNested()
  @Type(() => RateLimitDto)
  rateLimit!: RateLimitDto | null;

  @IsBoolean()
  scrub!: boolean;
}

export class StartLearningDto implements StartLearningRequest {
  @IsISO8601({ strict: true })
  until!: string;
}

export class EndpointsQueryDto {
  @IsOptional()
  @MaxLength(200)
  @IsString()
  search?: string;

  @IsOptional()
  @MaxLength(100)
  @IsString()
  tag?: string;
}
