import type { ChangeObjectType } from '@arrbiter/contracts';
import { PageQueryDto } from '@arrbiter/server/http';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

export const CHANGE_OBJECT_TYPES: readonly ChangeObjectType[] = [
  'service',
  'app',
  'proxy',
  'template',
  'warning',
  'session',
  'settings',
  'openapi',
];

export class ListChangesDto extends PageQueryDto {
  @IsOptional()
  @IsIn(CHANGE_OBJECT_TYPES)
  objectType?: ChangeObjectType;

  @IsOptional()
  @IsUUID()
  objectId?: string;

  @IsOptional()
  @IsUUID()
  appId?: string;

  @IsOptional()
  @MaxLength(100)
  @IsString()
  actor?: string;
}
