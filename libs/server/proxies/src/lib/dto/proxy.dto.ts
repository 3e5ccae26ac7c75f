import {
  AllowlistMap,
  CreateProxyRequest,
  ProxyConfigRequest,
  StartLearningRequest,
  UpdateProxyRequest,
} from '@arrbiter/contracts';
import { IsBoolean, IsISO8601, IsObject, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

export class CreateProxyDto implements CreateProxyRequest {
  @IsUUID()
  serviceId!: string;
}

export class UpdateProxyDto implements UpdateProxyRequest {
  @IsBoolean()
  active!: boolean;
}

/**
 * The map's paths and methods are checked by `overrideProblems` (class-validator cannot see into maps),
 * on the raw body too (`RawOverridesCheck`): the validation pipe strips a `__proto__` key before any
 * check here could see it.
 */
export class ProxyConfigDto implements ProxyConfigRequest {
  @IsObject()
  overrides!: AllowlistMap;

  @IsBoolean()
  active!: boolean;
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
