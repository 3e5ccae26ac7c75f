import {
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

export class WebhookRequestDto implements WebhookRequest {
  /** A stored webhook's id; absent for a new one. */
  @IsOptional()
  @IsUUID()
  id?: string;

  /** Absent (or masked as read) to keep the stored URL. */
  @IsOptional()
  @IsWebhookUrl()
  @IsString()
  url?: string;

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

export class NotificationSettingsDto implements NotificationSettingsRequest {
  @ValidateNested({ each: true })
  @Type(() => WebhookRequestDto)
  @ArrayMaxSize(MAX_WEBHOOKS, { message: `webhooks must hold at most ${MAX_WEBHOOKS} webhooks` })
  @IsArray()
  webhooks!: WebhookRequestDto[];
}
