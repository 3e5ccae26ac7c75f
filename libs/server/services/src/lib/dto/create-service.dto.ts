import { CreateServiceRequest, UpdateServiceRequest } from '@arrbiter/contracts';
import { IsOptional, IsString, Matches, MaxLength } from 'class-validator';

/** An upstream's own key: printable, no spaces. */
export const API_KEY = /^[\x21-\x7e]{8,256}$/;
export const API_KEY_MESSAGE = 'apiKey must be 8-256 printable characters without spaces';

export class CreateServiceDto implements CreateServiceRequest {
  @MaxLength(2048)
  @IsString()
  baseUrl!: string;

  @Matches(API_KEY, { message: API_KEY_MESSAGE })
  @IsString()
  apiKey!: string;
}

export class UpdateServiceDto implements UpdateServiceRequest {
  @IsOptional()
  @MaxLength(2048)
  @IsString()
  baseUrl?: string;

  @IsOptional()
  @Matches(API_KEY, { message: API_KEY_MESSAGE })
  @IsString()
  apiKey?: string;
}
