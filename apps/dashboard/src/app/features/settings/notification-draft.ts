import type {
  DeliveryStatus,
  NotificationAttemptDto,
  NotificationEventType,
  NotificationFormat,
  WebhookDto,
  WebhookRequest,
} from '@arrbiter/contracts';
import { NOTIFICATION_EVENTS } from '@arrbiter/contracts';

/** What each event is, for the form and the lists. */
export const EVENT_LABELS: Record<NotificationEventType, { label: string; hint: string }> = {
  'warning.new': {
    label: 'New refused call',
    hint: 'A proxy is refused a route for the first time (at most one message per route and hour).',
  },
  'learning.ended': { label: 'Learning mode ended', hint: 'At its deadline, or stopped by an administrator.' },
  'template-sync.failed': { label: 'Template sync failed', hint: 'The template repository could not be read.' },
  'template-sync.changed': { label: 'Templates changed', hint: 'A sync added, changed or removed templates.' },
  'service.unreachable': {
    label: 'Service unreachable',
    hint: 'A service stops answering its status check (checked every few minutes).',
  },
  'service.recovered': { label: 'Service reachable again', hint: 'An unreachable service answers again.' },
  'key.rotated': { label: 'Key rotated', hint: 'A proxy got a new key: its client needs it.' },
};

export const FORMAT_LABELS: Record<NotificationFormat, { label: string; hint: string; placeholder: string }> = {
  discord: {
    label: 'Discord',
    hint: 'A channel webhook (channel settings → Integrations → Webhooks).',
    placeholder: 'https://discord.com/api/webhooks/…',
  },
  ntfy: {
    label: 'ntfy',
    hint: 'A topic URL on ntfy.sh or your own ntfy server.',
    placeholder: 'https://ntfy.sh/your-topic',
  },
  json: {
    label: 'JSON',
    hint: 'Arrbiter’s own JSON document, for scripts and automation tools.',
    placeholder: 'https://automation.example.com/hooks/arrbiter',
  },
};

/** The formats in the order the form offers them. */
export const FORMATS: readonly NotificationFormat[] = ['discord', 'ntfy', 'json'];

/** The form's state of one webhook: an empty URL keeps the stored one. */
export interface WebhookDraft {
  id: string | null;
  url: string;
  format: NotificationFormat;
  events: NotificationEventType[];
  enabled: boolean;
}

/** A new webhook: Discord, every event, enabled. */
export function newDraft(): WebhookDraft {
  return { id: null, url: '', format: 'discord', events: [...NOTIFICATION_EVENTS], enabled: true };
}

export function draftOf(webhook: WebhookDto): WebhookDraft {
  return { id: webhook.id, url: '', format: webhook.format, events: [...webhook.events], enabled: webhook.enabled };
}

/** What the server would refuse about a draft's URL, said for a person; null when fine. */
export function urlProblem(draft: WebhookDraft): string | null {
  const value = draft.url.trim();
  if (value === '') return draft.id ? null : 'Enter the webhook’s URL.';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'Enter a full URL, starting with https:// or http://.';
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return 'The URL starts with https:// or http://.';
  if (url.hash) return 'Leave the #fragment out of the URL.';
  if (value.includes('…'))
    return 'This is the masked URL: leave the field empty to keep it, or paste the whole new URL.';
  return null;
}

/** One webhook of the PUT body: the URL only when a new one was typed. */
function requestOf(draft: WebhookDraft): WebhookRequest {
  const url = draft.url.trim();
  return {
    ...(draft.id ? { id: draft.id } : {}),
    ...(url ? { url } : {}),
    format: draft.format,
    events: NOTIFICATION_EVENTS.filter((e) => draft.events.includes(e)),
    enabled: draft.enabled,
  };
}

/** The whole list to save: the stored webhooks (URLs kept) with one added, replaced or left out. */
export function listWith(
  stored: readonly WebhookDto[],
  change: { save: WebhookDraft } | { remove: string } | { toggle: string; enabled: boolean },
): WebhookRequest[] {
  const kept = stored.map((webhook) => {
    if ('save' in change && change.save.id === webhook.id) return requestOf(change.save);
    if ('toggle' in change && change.toggle === webhook.id)
      return { ...requestOf(draftOf(webhook)), enabled: change.enabled };
    return requestOf(draftOf(webhook));
  });
  const list = 'remove' in change ? kept.filter((w) => w.id !== change.remove) : kept;
  return 'save' in change && change.save.id === null ? [...list, requestOf(change.save)] : list;
}

export const STATUS_LABELS: Record<DeliveryStatus, { label: string; badge: string }> = {
  delivered: { label: 'Delivered', badge: 'ok' },
  retrying: { label: 'Failed, retrying', badge: 'warn' },
  failed: { label: 'Failed', badge: 'danger' },
  dropped: { label: 'Not sent', badge: 'danger' },
};

/** "Delivered (HTTP 204)", "Failed (HTTP 503): …", "Failed: no answer within 10 s". */
export function describeAttempt(attempt: NotificationAttemptDto): string {
  const http = attempt.httpStatus !== undefined ? ` (HTTP ${attempt.httpStatus})` : '';
  return `${STATUS_LABELS[attempt.status].label}${http}${attempt.error ? `: ${attempt.error}` : ''}`;
}

export function eventLabel(event: NotificationAttemptDto['event']): string {
  return event === 'test' ? 'Test message' : EVENT_LABELS[event].label;
}
