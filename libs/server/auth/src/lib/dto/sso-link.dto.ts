import { SsoLinkRequest } from '@arrbiter/contracts';
import { IsString, MaxLength, MinLength } from 'class-validator';

export class SsoLinkDto implements SsoLinkRequest {
  @MaxLength(256)
  @MinLength(1)
  @IsString()
  password!: string;
}
