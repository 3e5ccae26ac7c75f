import type {
  AllowlistMap,
  ConfigApp,
  ConfigDocument,
  ConfigProxy,
  ConfigService,
  ConfigSettings,
  ConfigTemplate,
} from '@arrbiter/contracts';
import { CONFIG_DOCUMENT_VERSION } from '@arrbiter/contracts';
import { SLUG } from '@arrbiter/server/apps';
import { SERVICE_TYPE } from '@arrbiter/server/catalog';
import { PROXY_KEY_PATTERN } from '@arrbiter/server/crypto';
import { ConfigNotificationsDto } from '@arrbiter/server/notifications';
import { ProxyDefaultsDto, RateLimitDto } from '@arrbiter/server/proxies';
import { API_KEY, API_KEY_MESSAGE } from '@arrbiter/server/services';
import { TemplateRepositoryDto } from '@arrbiter/server/template-sync';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  Equals,
  IsArray,
  IsBoolean,
  IsIn,
  IsObject,
  IsOptional,
  IsString,
  Matches,
  MaxLength,
  MinLength,
  ValidateIf,
  ValidateNested,
} from 'class-validator';

/** Skips a field's checks when it is left out; null is checked (refused), unlike `@IsOptional()`. */
const IfPresent = () => ValidateIf((_o, value) => value !== undefined);

/** How many objects of each kind one document may hold. */
export const DOCUMENT_LIMITS = { services: 1_000, templates: 5_000, apps: 10_000, proxiesPerApp: 100 } as const;

/**
 * The document's shape, checked by class-validator (unknown fields refused). What a decorator cannot
 * see is checked by `documentProblems` next to it: base URLs, override and template maps, names that
 * must be unique, secret references.
 */
export class ConfigSettingsDto implements ConfigSettings {
  @IfPresent()
  @ValidateNested()
  @Type(() => ProxyDefaultsDto)
  proxyDefaults?: ProxyDefaultsDto;

  @IfPresent()
  @ValidateNested()
  @Type(() => TemplateRepositoryDto)
  templateRepository?: TemplateRepositoryDto;

  @IfPresent()
  @ValidateNested()
  @Type(() => ConfigNotificationsDto)
  notifications?: ConfigNotificationsDto;
}

export class ConfigServiceDto implements ConfigService {
  @MaxLength(2048)
  @IsString()
  baseUrl!: string;

  @IfPresent()
  @MaxLength(128)
  @MinLength(1)
  @IsString()
  name?: string;

  @IfPresent()
  @Matches(SERVICE_TYPE, { message: 'type must be a lower-case service type such as radarr' })
  @IsString()
  type?: string;

  @IfPresent()
  @Matches(API_KEY, { message: API_KEY_MESSAGE })
  @IsString()
  apiKey?: string;
}

export class ConfigTemplateDto implements ConfigTemplate {
  @MaxLength(100)
  @IsString()
  name!: string;

  @IfPresent()
  @IsIn(['local', 'repository'])
  source?: 'local' | 'repository';

  @IsObject()
  blocks!: Record<string, AllowlistMap>;
}

export class ConfigProxyDto implements ConfigProxy {
  @MaxLength(2048)
  @MinLength(1)
  @IsString()
  service!: string;

  @IfPresent()
  @IsBoolean()
  active?: boolean;

  @IfPresent()
  @IsObject()
  overrides?: AllowlistMap;

  /** Null: no limit. */
  @IsOptional()
  @ValidateNested()
  @Type(() => RateLimitDto)
  rateLimit?: RateLimitDto | null;

  @IfPresent()
  @IsBoolean()
  scrub?: boolean;

  @IfPresent()
  @Matches(PROXY_KEY_PATTERN, { message: 'key must be 32 lower-case hexadecimal characters' })
  @IsString()
  key?: string;
}

export class ConfigAppDto implements ConfigApp {
  @Matches(SLUG, { message: 'slug must be 1-63 lower-case letters, digits or "-", starting with a letter or digit' })
  @IsString()
  slug!: string;

  @MaxLength(100)
  @MinLength(1)
  @IsString()
  name!: string;

  /** A template's name; null for none. */
  @IsOptional()
  @ValidateIf((_app, value) => value !== null)
  @MaxLength(100)
  @IsString()
  template?: string | null;

  /** A known client's id: new proxies without overrides get its calls that are not sensitive. */
  @IfPresent()
  @Matches(/^[a-z0-9][a-z0-9-]{0,63}$/, {
    message: 'client must be a known client id such as overseerr (GET /api/admin/v1/known-clients)',
  })
  @IsString()
  client?: string;

  @IfPresent()
  @IsBoolean()
  active?: boolean;

  @IfPresent()
  @ArrayMaxSize(DOCUMENT_LIMITS.proxiesPerApp)
  @ValidateNested({ each: true })
  @Type(() => ConfigProxyDto)
  @IsArray()
  proxies?: ConfigProxyDto[];
}

export class ConfigDocumentDto implements ConfigDocument {
  @Equals(CONFIG_DOCUMENT_VERSION, {
    message: `version must be ${CONFIG_DOCUMENT_VERSION} (the document version this server reads)`,
  })
  version!: typeof CONFIG_DOCUMENT_VERSION;

  @IfPresent()
  @IsBoolean()
  prune?: boolean;

  @IfPresent()
  @ValidateNested()
  @Type(() => ConfigSettingsDto)
  settings?: ConfigSettingsDto;

  @IfPresent()
  @ArrayMaxSize(DOCUMENT_LIMITS.services)
  @ValidateNested({ each: true })
  @Type(() => ConfigServiceDto)
  @IsArray()
  services?: ConfigServiceDto[];

  @IfPresent()
  @ArrayMaxSize(DOCUMENT_LIMITS.templates)
  @ValidateNested({ each: true })
  @Type(() => ConfigTemplateDto)
  @IsArray()
  templates?: ConfigTemplateDto[];

  @IfPresent()
  @ArrayMaxSize(DOCUMENT_LIMITS.apps)
  @ValidateNested({ each: true })
  @Type(() => ConfigAppDto)
  @IsArray()
  apps?: ConfigAppDto[];
}
