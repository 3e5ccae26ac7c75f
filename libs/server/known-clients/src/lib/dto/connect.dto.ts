import type { ConnectClientRequest, NamedCall } from '@arrbiter/contracts';
import { SLUG } from '@arrbiter/server/apps';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayMinSize,
  ArrayUnique,
  IsArray,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/** Methods as allowlists write them. */
const METHODS = ['get', 'post', 'put', 'patch', 'delete', 'head', 'options'];

/** A sensitive call to grant: method and route as the allowlist writes them; `serviceId` limits it to one service. */
export class NamedCallDto implements NamedCall {
  @IsIn(METHODS, { message: `method must be one of ${METHODS.join(', ')} (lower case)` })
  @IsString()
  method!: string;

  @Matches(/^\//, { message: 'route must start with "/"' })
  @MaxLength(2048)
  @IsString()
  route!: string;

  @IsOptional()
  @IsUUID()
  serviceId?: string;
}

export class ConnectIncludeDto {
  @ValidateNested({ each: true })
  @Type(() => NamedCallDto)
  @ArrayMaxSize(500)
  @IsArray()
  sensitive!: NamedCallDto[];
}

/** `POST /api/admin/v1/known-clients/:id/connect`. */
export class ConnectClientDto implements ConnectClientRequest {
  /** 1–6 services, each its own proxy of the new app. */
  @ArrayUnique({ message: 'serviceIds must not name a service twice' })
  @IsUUID('all', { each: true })
  @ArrayMaxSize(6)
  @ArrayMinSize(1)
  @IsArray()
  serviceIds!: string[];

  /** A community template as the base (its block per service type), null or absent for none. */
  @IsOptional()
  @IsUUID()
  templateId?: string | null;

  /** The sensitive calls to grant as well (every other call of the client is granted, every sensitive one left out). */
  @IsOptional()
  @ValidateNested()
  @Type(() => ConnectIncludeDto)
  include?: ConnectIncludeDto;

  /** The app's name; the client's name by default. */
  @ValidateIf((_o, value) => value !== undefined)
  @MaxLength(100)
  @MinLength(1)
  @IsString()
  name?: string;

  /** `/proxy/{slug}`; the client's id by default, then `<id>-2`, `-3`… */
  @ValidateIf((_o, value) => value !== undefined)
  @Matches(SLUG, {
    message: 'slug must be 1-63 lower-case letters, digits or "-", starting with a letter or digit',
  })
  @IsString()
  slug?: string;
}
