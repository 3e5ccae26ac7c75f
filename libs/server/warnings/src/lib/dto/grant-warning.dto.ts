import type { WarningGrantRequest } from '@arrbiter/contracts';
import { IsIn, IsOptional } from 'class-validator';

/** `POST …/warnings/:id/grant`: for a path no route matches, its sample path (default) or its shape. */
export class GrantWarningDto implements WarningGrantRequest {
  @IsOptional()
  @IsIn(['path', 'shape'])
  scope?: 'path' | 'shape';
}
