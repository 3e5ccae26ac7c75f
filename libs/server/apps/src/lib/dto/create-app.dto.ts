import { applyDecorators } from '@nestjs/common';
import { CloneAppRequest, CreateAppRequest, UpdateAppRequest } from '@arrbiter/contracts';
import { IsBoolean, IsOptional, IsString, IsUUID, Matches, MaxLength, MinLength, ValidateIf } from 'class-validator';

export const SLUG = /^[a-z0-9][a-z0-9-]{0,62}$/;
const SLUG_MESSAGE = 'slug must be 1-63 lower-case letters, digits or "-", starting with a letter or digit';

/** Skips a field's checks when it is left out; null is checked (refused), unlike `@IsOptional()`. */
const IfPresent = () => ValidateIf((_o, value) => value !== undefined);

// Applied in the order of a stack of decorators written bottom-up, so that messages keep their order.
/** An app's name: 1–100 characters. */
const AppName = () => applyDecorators(IsString(), MinLength(1), MaxLength(100));

/** An app's slug (`/proxy/{slug}`): see `SLUG`. */
const AppSlug = () => applyDecorators(IsString(), Matches(SLUG, { message: SLUG_MESSAGE }));

export class CreateAppDto implements CreateAppRequest {
  @AppName()
  name!: string;

  @AppSlug()
  slug!: string;

  @ValidateIf((_o, value) => value !== null)
  @IsUUID()
  templateId!: string | null;

  @IsBoolean()
  active!: boolean;
}

export class UpdateAppDto implements UpdateAppRequest {
  @IfPresent()
  @AppName()
  name?: string;

  @IfPresent()
  @AppSlug()
  slug?: string;

  @IsOptional()
  @ValidateIf((_o, value) => value !== null)
  @IsUUID()
  templateId?: string | null;

  @IfPresent()
  @IsBoolean()
  active?: boolean;
}

/** A copy of an app under a new name and slug (`POST /api/admin/v1/apps/:id/clone`). */
export class CloneAppDto implements CloneAppRequest {
  @AppName()
  name!: string;

  @AppSlug()
  slug!: string;
}
