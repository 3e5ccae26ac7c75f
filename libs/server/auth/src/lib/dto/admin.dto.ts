import { ADMIN_ROLES, type AdminRole, CreateAdminRequest, UpdateAdminRequest } from '@arrbiter/contracts';
import { IsIn, IsOptional, IsString, Matches, MaxLength, MinLength } from 'class-validator';
import { RESERVED_USERNAME_MESSAGE, RESERVED_USERNAMES } from '../reserved-usernames';

const USERNAME = /^[A-Za-z0-9._@-]{1,64}$/;
const USERNAME_MESSAGE = 'username must be 1-64 characters of letters, digits, ".", "_", "@" or "-"';
const NOT_RESERVED = new RegExp(`^(?!${RESERVED_USERNAMES.join('|')}$)`, 'i');

export class CreateAdminDto implements CreateAdminRequest {
  @Matches(NOT_RESERVED, { message: RESERVED_USERNAME_MESSAGE })
  @Matches(USERNAME, { message: USERNAME_MESSAGE })
  @IsString()
  username!: string;

  @IsOptional()
  @MaxLength(256)
  @MinLength(12)
  @IsString()
  password?: string;

  @IsIn(ADMIN_ROLES)
  role!: AdminRole;
}

export class UpdateAdminDto implements UpdateAdminRequest {
  @IsOptional()
  @MaxLength(256)
  @MinLength(12)
  @IsString()
  password?: string;

  @IsOptional()
  @IsIn(ADMIN_ROLES)
  role?: AdminRole;
}
