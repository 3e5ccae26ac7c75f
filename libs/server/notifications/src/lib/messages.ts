import type { NotificationFormat, NotificationSeverity, WebhookJsonPayload } from '@arrbiter/contracts';
import type { NotificationEvent, ProxySubject } from './notification-event';

/** What is delivered: an event, or a test message an admin asked for. */
export type Notice = NotificationEvent | { type: 'test' };

/** A notice written for people, before it takes a webhook's format: the JSON document, and fields. */
export interface Message extends WebhookJsonPayload {
  /** The facts a chat message shows beside the text (Discord fields). */
  fields: { name: string; value: string }[];
}

/** A request body and the headers that go with it. */
export interface RenderedMessage {
  headers: Record<string, string>;
  body: string;
}

function proxyData(proxy: ProxySubject): WebhookJsonPayload['data'] {
  return {
    proxyId: proxy.id,
    appId: proxy.appId,
    appName: proxy.appName,
    serviceId: proxy.serviceId,
    serviceName: proxy.serviceName,
  };
}

const pair = (proxy: ProxySubject) => `${proxy.appName} → ${proxy.serviceName}`;

const list = (items: string[]) => (items.length === 0 ? 'none' : items.join(', '));

/**
 * Writes a notice for people: a title, a sentence or two, the facts (`data`, documented in
 * docs/notifications.md) and the dashboard page about it. Nothing secret is ever part of a notice.
 */
export function describeNotice(notice: Notice, at: Date, suppressed: number, publicUrl: string): Message {
  const base = { event: notice.type, at: at.toISOString(), suppressed };
  const page = (path: string) => `${publicUrl}${path}`;
  switch (notice.type) {
    case 'warning.new': {
      const method = notice.method.toUpperCase();
      const call = `${method} ${notice.path}`;
      const rateLimited = notice.status === 'rate-limited';
      const again = notice.reopened ? ' again, after it had been granted' : '';
      return {
        ...base,
        title: rateLimited
          ? `Rate limit reached: ${pair(notice.proxy)}`
          : `Refused: ${method} ${notice.route ?? notice.path}`,
        text: rateLimited
          ? `${pair(notice.proxy)} made more calls than its rate limit allows (${method}). Raise or lift the limit on the proxy's page if this is expected.`
          : `${pair(notice.proxy)} was refused ${call}${again}: its allowlist does not grant ${notice.route ? `the route ${method} ${notice.route}` : 'this path'}. Grant or dismiss it on the Warnings page.`,
        severity: 'warning',
        link: page(`/warnings?proxyId=${notice.proxy.id}`),
        data: {
          ...proxyData(notice.proxy),
          method,
          route: notice.route,
          path: notice.path,
          status: notice.status,
          reopened: notice.reopened,
        },
        fields: [
          { name: 'App', value: notice.proxy.appName },
          { name: 'Service', value: notice.proxy.serviceName },
          { name: 'Call', value: call },
          ...(notice.route ? [{ name: 'Route', value: notice.route }] : []),
        ],
      };
    }
    case 'learning.ended':
      return {
        ...base,
        title: `Learning mode ended: ${pair(notice.proxy)}`,
        text:
          notice.reason === 'deadline'
            ? `Learning mode of ${pair(notice.proxy)} reached its deadline: refused calls are refused again. Review what it learned on the Warnings page.`
            : `${notice.actor} stopped learning mode of ${pair(notice.proxy)}: refused calls are refused again.`,
        severity: 'info',
        link: page(`/warnings?proxyId=${notice.proxy.id}`),
        data: { ...proxyData(notice.proxy), reason: notice.reason, actor: notice.actor },
        fields: [
          { name: 'App', value: notice.proxy.appName },
          { name: 'Service', value: notice.proxy.serviceName },
          { name: 'Ended', value: notice.reason === 'deadline' ? 'at its deadline' : `by ${notice.actor}` },
        ],
      };
    case 'template-sync.failed':
      return {
        ...base,
        title: 'Template sync failed',
        text: `The template repository could not be synced, templates are unchanged: ${notice.error}`,
        severity: 'error',
        link: page('/templates'),
        data: { error: notice.error, actor: notice.actor },
        fields: [{ name: 'Started by', value: notice.actor }],
      };
    case 'template-sync.changed':
      return {
        ...base,
        title: 'Templates changed',
        text: `${notice.summary}.`,
        severity: 'info',
        link: page('/templates'),
        data: {
          added: notice.added,
          changed: notice.changed,
          deleted: notice.deleted,
          proxies: notice.proxies,
          commit: notice.commit,
          actor: notice.actor,
        },
        fields: [
          { name: 'Added', value: list(notice.added) },
          { name: 'Changed', value: list(notice.changed) },
          { name: 'Deleted', value: list(notice.deleted) },
          { name: 'Proxies changed', value: String(notice.proxies) },
        ],
      };
    case 'service.unreachable':
      return {
        ...base,
        title: `Unreachable: ${notice.service.name}`,
        text: `${notice.service.type} "${notice.service.name}" does not answer its status check (${notice.error}). Calls through its proxies fail until it is back.`,
        severity: 'error',
        link: page('/services'),
        data: {
          serviceId: notice.service.id,
          serviceName: notice.service.name,
          serviceType: notice.service.type,
          error: notice.error,
        },
        fields: [
          { name: 'Service', value: `${notice.service.name} (${notice.service.type})` },
          { name: 'Error', value: notice.error },
        ],
      };
    case 'service.recovered':
      return {
        ...base,
        title: `Reachable again: ${notice.service.name}`,
        text: `${notice.service.type} "${notice.service.name}" answers its status check again${
          notice.downSince ? ` (unreachable since ${notice.downSince.toISOString()})` : ''
        }.`,
        severity: 'success',
        link: page('/services'),
        data: {
          serviceId: notice.service.id,
          serviceName: notice.service.name,
          serviceType: notice.service.type,
          downSince: notice.downSince?.toISOString() ?? null,
        },
        fields: [{ name: 'Service', value: `${notice.service.name} (${notice.service.type})` }],
      };
    case 'key.rotated': {
      const until = notice.previousKeyValidUntil?.toISOString() ?? null;
      return {
        ...base,
        title: `Key rotated: ${pair(notice.proxy)}`,
        text: `${notice.actor} rotated the key of ${pair(notice.proxy)}. ${
          until ? `The old key keeps working until ${until}: give` : 'The old key no longer works: give'
        } the client the new key, shown on the proxy's Connection page.`,
        severity: 'warning',
        link: page(`/apps/${notice.proxy.appId}/proxies/${notice.proxy.id}/connection`),
        data: { ...proxyData(notice.proxy), actor: notice.actor, previousKeyValidUntil: until },
        fields: [
          { name: 'App', value: notice.proxy.appName },
          { name: 'Service', value: notice.proxy.serviceName },
          { name: 'By', value: notice.actor },
          { name: 'Old key works until', value: until ?? 'stopped at once' },
        ],
      };
    }
    case 'test':
      return {
        ...base,
        title: 'Test message from Arrbiter',
        text: 'This webhook works: Arrbiter can deliver its notifications here.',
        severity: 'info',
        link: page('/settings'),
        data: {},
        fields: [],
      };
  }
}

function clip(text: string, max: number): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/** Discord renders Markdown and turns `@everyone` into a mention: names and paths are shown as they are. */
function escapeMarkdown(text: string): string {
  return text.replace(/([\\*_~`|>#[\]()-])/g, '\\$1');
}

const DISCORD_COLOURS: Record<NotificationSeverity, number> = {
  info: 0x3b82f6,
  success: 0x16a34a,
  warning: 0xf59e0b,
  error: 0xdc2626,
};

/** ntfy tags (emoji short codes) by event. */
const NTFY_TAGS: Record<Message['event'], string> = {
  'warning.new': 'no_entry',
  'learning.ended': 'mortar_board',
  'template-sync.failed': 'x',
  'template-sync.changed': 'memo',
  'service.unreachable': 'rotating_light',
  'service.recovered': 'white_check_mark',
  'key.rotated': 'key',
  test: 'bell',
};

/** ntfy priorities: 4 (high) for errors, 3 (default) otherwise. */
const NTFY_PRIORITY: Record<NotificationSeverity, string> = { info: '3', success: '3', warning: '3', error: '4' };

/** A header value as ntfy reads it: ASCII as it is, anything else RFC 2047-encoded. */
function headerValue(text: string): string {
  return /^[\x20-\x7e]*$/.test(text) ? text : `=?UTF-8?B?${Buffer.from(text, 'utf8').toString('base64')}?=`;
}

/** The request a webhook of this format gets for a message. */
export function renderMessage(format: NotificationFormat, message: Message): RenderedMessage {
  switch (format) {
    case 'json': {
      const { fields: _fields, ...payload }: Message = message;
      return {
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify(payload satisfies WebhookJsonPayload),
      };
    }
    case 'discord': {
      const more = message.suppressed > 0 ? `\n(${message.suppressed} more like this since the last message)` : '';
      const body = {
        content: clip(escapeMarkdown(message.title), 2000),
        embeds: [
          {
            title: clip(message.title, 256),
            description: clip(`${escapeMarkdown(message.text)}${more}`, 4096),
            color: DISCORD_COLOURS[message.severity],
            timestamp: message.at,
            ...(message.link ? { url: message.link } : {}),
            fields: message.fields
              .slice(0, 25)
              .map((field) => ({ name: clip(field.name, 256), value: clip(field.value || '—', 1024), inline: true })),
            footer: { text: `Arrbiter · ${message.event}` },
          },
        ],
        // Names and paths come from clients and admins: never a mention (@everyone, roles, users).
        allowed_mentions: { parse: [] },
      };
      return { headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) };
    }
    case 'ntfy': {
      const more = message.suppressed > 0 ? `\n(${message.suppressed} more like this since the last message)` : '';
      return {
        headers: {
          'Content-Type': 'text/plain; charset=utf-8',
          Title: headerValue(clip(message.title, 200)),
          Tags: `${NTFY_TAGS[message.event]},arrbiter`,
          Priority: NTFY_PRIORITY[message.severity],
          ...(message.link ? { Click: message.link } : {}),
        },
        body: `${message.text}${more}`,
      };
    }
  }
}
