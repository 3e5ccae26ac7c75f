import type { BulkWarningsRequest } from '@arrbiter/contracts';
import { ArrayMaxSize, ArrayMinSize, ArrayUnique, IsArray, IsBoolean, IsOptional, IsUUID } from 'class-validator';

/** `POST …/warnings/grant|dismiss`: 1–100 distinct warning ids. */
export class BulkWarningsDto implements BulkWarningsRequest {
  @IsArray()
  @ArrayMinSize(1)
  @ArrayMaxSize(100)
  @ArrayUnique()
  @IsUUID('all', { each: true })
  ids!: string[];

  /** Grant sensitive rows too (ignored by dismiss). */
  @IsOptional()
  @IsBoolean()
  confirmSensitive?: boolean;
}
