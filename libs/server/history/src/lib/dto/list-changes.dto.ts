import { CHANGE_OBJECT_TYPES, ChangeObjectType } from '@arrbiter/contracts';
import { PageQueryDto } from '@arrbiter/server/http';
import { IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

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
