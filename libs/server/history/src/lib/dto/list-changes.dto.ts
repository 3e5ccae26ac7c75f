import { CHANGE_OBJECT_TYPES, ChangeObjectType } from '@arrbiter/contracts';
import { PageQueryDto } from '@arrbiter/server/http';
import { Transform } from 'class-transformer';
import { IsBoolean, IsIn, IsOptional, IsString, IsUUID, MaxLength } from 'class-validator';

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

  /** `false` leaves out sign-ins and sign-outs (`session.signed-in`, `session.signed-out`); kept by default. */
  @IsOptional()
  @Transform(({ value }: { value: unknown }) => (value === 'true' ? true : value === 'false' ? false : value))
  @IsBoolean()
  signIns?: boolean;
}
