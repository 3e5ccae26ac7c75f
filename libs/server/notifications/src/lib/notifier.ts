import type { NotificationEvent } from './notification-event';

/**
 * Where a domain reports what webhooks may be told about, without knowing about webhooks: `raise`
 * returns at once and never throws; delivery happens later, off the request path. Provided globally
 * by `NotificationsModule` (the modules that raise events are imported by the composition root, not by
 * it).
 */
export abstract class Notifier {
  abstract raise(event: NotificationEvent): void;
}
