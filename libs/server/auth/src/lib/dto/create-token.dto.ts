import { ADMIN_ROLES, type AdminRole, CreateTokenRequest } from '@arrbiter/contracts';
import { IsIn, IsISO8601, IsOptional, IsString, Matches } from 'class-validator';

export class CreateTokenDto implements CreateTokenRequest {
  @Matches(/^[A-Za-z0-9][A-Za-z0-9 ._-]{0,63}$/, {
    message:
      'name must be 1-64 characters of letters, digits, spaces, ".", "_" or "-", starting with a letter or digit',
  })
  @IsString()
  name!: string;

  @IsIn(ADMIN_ROLES)
  role!: AdminRole;

  @IsOptional()
  @IsISO8601({ strict: true }, { message: 'expiresAt must be an ISO 8601 date-time' })
  expiresAt?: string | null;
}
