/** How a webhook's messages are written: Arrbiter's JSON document, a Discord message, or an ntfy message. */
export const NOTIFICATION_FORMATS = ['json', 'discord', 'ntfy'] as const;
export type NotificationFormat = (typeof NOTIFICATION_FORMATS)[number];

/** What a webhook can be told about. */
export const NOTIFICATION_EVENTS = [
  'warning.new',
  'learning.ended',
  'template-sync.failed',
  'template-sync.changed',
  'service.unreachable',
  'service.recovered',
  'key.rotated',
] as const;
export type NotificationEventType = (typeof NOTIFICATION_EVENTS)[number];

/** At most this many webhooks. */
export const MAX_WEBHOOKS = 20;

/**
 * A webhook as the admin API answers it. `url` is masked: its scheme, host and port, the path up to
 * its last segment (segments that look like tokens replaced by `…`), then `/…`; never a query,
 * credentials or the last segment, where Discord and ntfy keep their secrets.
 */
export interface WebhookDto {
  id: string;
  url: string;
  format: NotificationFormat;
  events: NotificationEventType[];
  enabled: boolean;
}

/** `GET/PUT /api/admin/v1/settings/notifications`. */
export interface NotificationSettings {
  webhooks: WebhookDto[];
}

/**
 * One webhook of a `PUT`: without `id`, a new one (`url` required); with the `id` of a stored one,
 * that one (its attempts kept), and `url` may be left out (or sent back masked, as it was read) to
 * keep the stored URL.
 */
export interface WebhookRequest {
  id?: string;
  url?: string;
  format: NotificationFormat;
  events: NotificationEventType[];
  enabled: boolean;
}

/** `PUT /api/admin/v1/settings/notifications`: the whole list; webhooks left out are deleted. */
export interface NotificationSettingsRequest {
  webhooks: WebhookRequest[];
}

/**
 * What became of one delivery attempt: `delivered` (2xx), `retrying` (failed, tried again later),
 * `failed` (failed for good: an answer that a retry would not change, or the last attempt), `dropped`
 * (never sent: too many messages were waiting for this webhook).
 */
export type DeliveryStatus = 'delivered' | 'retrying' | 'failed' | 'dropped';

/** `GET …/settings/notifications/:id/attempts` items (newest first); `POST …/:id/test` answers one. */
export interface NotificationAttemptDto {
  /** The event, or `test` for a test message. */
  event: NotificationEventType | 'test';
  at: string;
  status: DeliveryStatus;
  /** The receiver's HTTP status, when it answered. */
  httpStatus?: number;
  /** Why it failed, in a short line (never the URL, never more than 300 characters of the answer). */
  error?: string;
}

/** How serious an event is (colours in Discord, priority in ntfy). */
export type NotificationSeverity = 'info' | 'success' | 'warning' | 'error';

/** The body Arrbiter POSTs to a `json` webhook (`Content-Type: application/json`). */
export interface WebhookJsonPayload {
  /** `warning.new`, …, or `test`. */
  event: NotificationEventType | 'test';
  /** When it happened (ISO 8601). */
  at: string;
  title: string;
  /** A sentence or two for a person. */
  text: string;
  severity: NotificationSeverity;
  /** The dashboard page about it (under `PUBLIC_URL`), or null. */
  link: string | null;
  /**
   * Events of the same kind about the same thing (one route of one proxy for `warning.new`) left out
   * since the previous message: at most one message per hour each.
   */
  suppressed: number;
  /** The event's facts (see docs/notifications.md); never a key or other secret. */
  data: Record<string, string | number | boolean | null | string[]>;
}
