import type { SaveAsTemplateRequest, TemplateRepositorySettings } from '@arrbiter/contracts';
import { TEMPLATE_NAME } from '@arrbiter/server/templates';
import { Transform } from 'class-transformer';
import { IsBoolean, IsInt, IsOptional, IsString, Matches, Max, MaxLength, Min, ValidateIf } from 'class-validator';

/** A git URL over http(s) without credentials, or an absolute directory; '' disables syncing. */
const REPOSITORY_URL = /^(|https?:\/\/[^\s@/?#]+(\/[^\s?#]*)?|\/[^\0]*)$/;
/** A branch, tag or commit: no `..`, no leading `-`. */
const GIT_REF = /^(?!-)(?!.*\.\.)[A-Za-z0-9._/-]{1,200}$/;
/** A relative folder without `..` segments. */
const RELATIVE_PATH = /^(?!\/)(?!(.*\/)?\.\.(\/|$))[A-Za-z0-9._ /-]{0,200}$/;

export class TemplateRepositoryDto implements TemplateRepositorySettings {
  @Matches(REPOSITORY_URL, {
    message:
      'url must be an http(s) git repository URL without credentials, an absolute directory, or empty to disable syncing',
  })
  @MaxLength(500)
  @IsString()
  url!: string;

  @ValidateIf((o: TemplateRepositoryDto) => o.ref !== '')
  @Matches(GIT_REF, { message: 'ref must be a branch, tag or commit name' })
  @IsString()
  ref!: string;

  @Matches(RELATIVE_PATH, { message: 'path must be a folder inside the repository (relative, no "..")' })
  @IsString()
  path!: string;

  // Decorators run bottom-up: the type check comes first.
  @Max(7 * 24 * 60)
  @Min(0)
  @IsInt()
  intervalMinutes!: number;
}

export class SyncQueryDto {
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  dryRun?: boolean;
}

export class SaveAsTemplateDto implements SaveAsTemplateRequest {
  @Matches(TEMPLATE_NAME, {
    message: "name must be 1–100 letters, digits, spaces or . _ ( ) & + ' -, starting with a letter or digit",
  })
  @IsString()
  name!: string;
}
