import { AllowlistMap, CreateProxyRequest, ProxyConfigRequest, UpdateProxyRequest } from '@arrbiter/contracts';
import { IsBoolean, IsObject, IsUUID } from 'class-validator';

export class CreateProxyDto implements CreateProxyRequest {
  @IsUUID()
  serviceId!: string;
}

export class UpdateProxyDto implements UpdateProxyRequest {
  @IsBoolean()
  active!: boolean;
}

/** The map's paths and methods are checked by `overrideProblems` (class-validator cannot see into maps). */
export class ProxyConfigDto implements ProxyConfigRequest {
  @IsObject()
  overrides!: AllowlistMap;

  @IsBoolean()
  active!: boolean;
}
