import {
  ConfigNotifications,
  ConfigWebhook,
  MAX_WEBHOOKS,
  NOTIFICATION_EVENTS,
  NOTIFICATION_FORMATS,
  NotificationEventType,
  NotificationFormat,
  NotificationSettingsRequest,
  WebhookRequest,
} from '@arrbiter/contracts';
import { Type } from 'class-transformer';
import {
  ArrayMaxSize,
  ArrayUnique,
  IsArray,
  IsBoolean,
  IsIn,
  IsOptional,
  IsString,
  IsUUID,
  ValidateBy,
  ValidateNested,
  ValidationOptions,
} from 'class-validator';
import { MASK, webhookUrlProblem } from '../webhook-url';

/**
 * An http(s) URL with a host, no fragment, at most 2048 characters; a masked URL (as read) passes
 * here and is matched against the stored one by the service. The message never repeats the value.
 */
function IsWebhookUrl(options?: ValidationOptions): PropertyDecorator {
  return ValidateBy(
    {
      name: 'isWebhookUrl',
      validator: {
        validate: (value: unknown) =>
          typeof value === 'string' && (value.includes(MASK) || webhookUrlProblem(value) === null),
        defaultMessage: (args) =>
          `${args?.property ?? 'url'} ${typeof args?.value === 'string' ? webhookUrlProblem(args.value) : 'must be a string'}`,
      },
    },
    options,
  );
}

/** What every webhook has: its format, its events, and whether it is on. */
class WebhookFieldsDto {
  @IsIn(NOTIFICATION_FORMATS)
  format!: NotificationFormat;

  @IsIn(NOTIFICATION_EVENTS, { each: true })
  @ArrayUnique({ message: 'events must not list an event twice' })
  @ArrayMaxSize(NOTIFICATION_EVENTS.length)
  @IsArray()
  events!: NotificationEventType[];

  @IsBoolean()
  enabled!: boolean;
}

export class WebhookRequestDto extends WebhookFieldsDto implements WebhookRequest {
  /** A stored webhook's id; absent for a new one. */
  @IsOptional()
  @IsUUID()
  id?: string;

  /** Absent (or masked as read) to keep the stored URL. */
  @IsOptional()
  @IsWebhookUrl()
  @IsString()
  url?: string;
}

const MAX_WEBHOOKS_MESSAGE = `webhooks must hold at most ${MAX_WEBHOOKS} webhooks`;

export class NotificationSettingsDto implements NotificationSettingsRequest {
  @ValidateNested({ each: true })
  @Type(() => WebhookRequestDto)
  @ArrayMaxSize(MAX_WEBHOOKS, { message: MAX_WEBHOOKS_MESSAGE })
  @IsArray()
  webhooks!: WebhookRequestDto[];
}

/** A webhook in a declarative document: its URL whole or masked (matched by `WebhooksService.fromDocument`). */
export class ConfigWebhookDto extends WebhookFieldsDto implements ConfigWebhook {
  @IsWebhookUrl()
  @IsString()
  url!: string;
}

/** `settings.notifications` of a declarative document. */
export class ConfigNotificationsDto implements ConfigNotifications {
  @ValidateNested({ each: true })
  @Type(() => ConfigWebhookDto)
  @ArrayMaxSize(MAX_WEBHOOKS, { message: MAX_WEBHOOKS_MESSAGE })
  @IsArray()
  webhooks!: ConfigWebhookDto[];
}
