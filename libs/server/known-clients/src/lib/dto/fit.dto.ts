import type { ApplyFitRequest } from '@arrbiter/contracts';
import { SERVICE_TYPE } from '@arrbiter/server/catalog';
import { IsBoolean, IsOptional, IsString, Matches } from 'class-validator';

/** A known client's id: lower case, as its file is named. */
export const KNOWN_CLIENT_ID = /^[a-z0-9][a-z0-9-]{0,63}$/;
const CLIENT_ID_MESSAGE = 'client must be a known client id such as maintainerr (GET /api/admin/v1/known-clients)';

export class FitQueryDto {
  /** The known client (by default the one written for the app's or the template's template). */
  @IsOptional()
  @Matches(KNOWN_CLIENT_ID, { message: CLIENT_ID_MESSAGE })
  @IsString()
  client?: string;
}

export class SuggestedTemplateQueryDto extends FitQueryDto {
  /** Only this service type's block, as the community repository's file `<serviceType>/<name>.json`. */
  @IsOptional()
  @Matches(SERVICE_TYPE, { message: 'serviceType must be a lower-case service type such as radarr' })
  @IsString()
  serviceType?: string;
}

export class ApplyFitDto implements ApplyFitRequest {
  @Matches(KNOWN_CLIENT_ID, { message: CLIENT_ID_MESSAGE })
  @IsString()
  client!: string;

  /** Grant every call of the client that the allowlist refuses. */
  @IsBoolean()
  grantMissing!: boolean;

  /** Revoke every grant the client never uses (through overrides that leave the method out). */
  @IsBoolean()
  revokeUnused!: boolean;
}
