import { CreateAppRequest, UpdateAppRequest } from '@arrbiter/contracts';
import { IsBoolean, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';

export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const SLUG_MESSAGE = 'slug must be 1-63 lower-case letters, digits or "-", starting with a letter or digit';

/** Skips a field's checks when it is left out; null is checked (refused), unlike `@IsOptional()`. */
const IfPresent = () => ValidateIf((_o, value) => value !== undefined);

export class CreateAppDto implements CreateAppRequest {
  @MaxLength(100)
  @MinLength(1)
  @IsString()
  name!: string;

  @Matches(SLUG, { message: SLUG_MESSAGE })
  @IsString()
  slug!: string;

  @ValidateIf((_o, value) => value !== null)
  @IsUUID()
  templateId!: string | null;

  @IsBoolean()
  active!: boolean;
}

export class UpdateAppDto implements UpdateAppRequest {
  @IfPresent()
  @MaxLength(100)
  @MinLength(1)
  @IsString()
  name?: string;

  @IfPresent()
  @Matches(SLUG, { message: SLUG_MESSAGE })
  @IsString()
  slug?: string;

  @IsOptional()
  @ValidateIf((_o, value) => value !== null)
  @IsUUID()
  templateId?: string | null;

  @IfPresent()
  @IsBoolean()
  active?: boolean;
}
