import { SignInRequest } from '@arrbiter/contracts';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class SignInDto implements SignInRequest {
  @MaxLength(64)
  @MinLength(1)
  @IsString()
  username!: string;

  @MaxLength(256)
  @MinLength(1)
  @IsString()
  password!: string;
}
