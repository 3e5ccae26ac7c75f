import { ChangePasswordRequest } from '@arrbiter/contracts';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class ChangePasswordDto implements ChangePasswordRequest {
  @MaxLength(256)
  @MinLength(1)
  @IsString()
  currentPassword!: string;

  @MaxLength(256)
  @MinLength(12)
  @IsString()
  newPassword!: string;
}
