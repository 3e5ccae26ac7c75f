import { Transform } from 'class-transformer';
import { IsBoolean, IsOptional } from 'class-validator';

/** `true` / `false` in a query string as a boolean (anything else is left for `@IsBoolean` to refuse). */
const QueryBoolean = () =>
  Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value));

export class ExportQueryDto {
  /** Write upstream keys and proxy keys too, and (for an owner only) the webhooks' URLs. */
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  secrets?: boolean;
}

export class ImportQueryDto {
  /** Report what the document would change and write nothing. */
  @IsOptional()
  @QueryBoolean()
  @IsBoolean()
  dryRun?: boolean;
}
