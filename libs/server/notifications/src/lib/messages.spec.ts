import type { WebhookJsonPayload } from '@arrbiter/contracts';
import { NOTIFICATION_EVENTS } from '@arrbiter/contracts';
import { describeNotice, Notice, renderMessage } from './messages';
import type { ProxySubject } from './notification-event';

const proxy: ProxySubject = {
  id: '00000000-0000-4000-8000-000000000001',
  appId: '00000000-0000-4000-8000-000000000002',
  appName: 'Overseerr',
  serviceId: '00000000-0000-4000-8000-000000000003',
  serviceName: 'Movies',
};
const service = { id: proxy.serviceId, name: 'Movies', type: 'radarr' };
const AT = new Date('2026-11-24T10:00:00.000Z');
const PUBLIC = 'https://arr.example.com';

/** One notice of each kind. */
const NOTICES: Notice[] = [
  {
    type: 'warning.new',
    proxy,
    method: 'get',
    route: '/api/v3/movie/{id}',
    routeKey: '/api/v3/movie/{id}',
    path: '/api/v3/movie/42',
    status: 'open',
    reopened: false,
  },
  { type: 'learning.ended', proxy, reason: 'deadline', actor: 'system' },
  { type: 'template-sync.failed', error: 'HTTP 404 from the repository', actor: 'system' },
  {
    type: 'template-sync.changed',
    added: ['homepage'],
    changed: ['overseerr'],
    deleted: [],
    proxies: 2,
    commit: 'abc',
    summary: 'Templates synced: 1 added, 1 changed',
    actor: 'admin',
  },
  { type: 'service.unreachable', service, error: 'Cannot reach http://radarr:7878: ECONNREFUSED' },
  { type: 'service.recovered', service, downSince: new Date('2026-11-24T09:00:00.000Z') },
  { type: 'key.rotated', proxy, actor: 'admin', previousKeyValidUntil: null },
  { type: 'test' },
];

describe(describeNotice.name, () => {
  it('covers every event', () => {
    expect(NOTICES.map((n) => n.type).filter((t) => t !== 'test')).toEqual([...NOTIFICATION_EVENTS]);
  });

  it.each(NOTICES.map((n) => [n.type, n] as const))('describes %s with a title, a text and a link', (_type, notice) => {
    const message = describeNotice(notice, AT, 0, PUBLIC);
    expect(message.title.length).toBeGreaterThan(5);
    expect(message.text.length).toBeGreaterThan(10);
    expect(message.link?.startsWith(`${PUBLIC}/`)).toBe(true);
    expect(message.at).toBe(AT.toISOString());
  });

  it('names the route of a refusal, and a refusal after a grant', () => {
    const [refusal] = NOTICES;
    expect(describeNotice(refusal, AT, 0, PUBLIC)).toMatchObject({
      event: 'warning.new',
      title: 'Refused: GET /api/v3/movie/{id}',
      link: `${PUBLIC}/warnings?proxyId=${proxy.id}`,
      data: {
        appName: 'Overseerr',
        serviceName: 'Movies',
        method: 'GET',
        route: '/api/v3/movie/{id}',
        path: '/api/v3/movie/42',
      },
    });
    if (refusal.type !== 'warning.new') throw new Error('not a refusal');
    expect(describeNotice({ ...refusal, reopened: true }, AT, 3, PUBLIC).text).toContain(
      'again, after it had been granted',
    );
  });
});

describe(renderMessage.name, () => {
  const [refusal] = NOTICES;
  const message = describeNotice(refusal, AT, 2, PUBLIC);

  it('json: the documented document', () => {
    const rendered = renderMessage('json', message);
    expect(rendered.headers).toEqual({ 'Content-Type': 'application/json' });
    const payload = JSON.parse(rendered.body) as WebhookJsonPayload;
    expect(payload).toEqual({
      event: 'warning.new',
      at: AT.toISOString(),
      title: 'Refused: GET /api/v3/movie/{id}',
      text: message.text,
      severity: 'warning',
      link: `${PUBLIC}/warnings?proxyId=${proxy.id}`,
      suppressed: 2,
      data: {
        proxyId: proxy.id,
        appId: proxy.appId,
        appName: 'Overseerr',
        serviceId: proxy.serviceId,
        serviceName: 'Movies',
        method: 'GET',
        route: '/api/v3/movie/{id}',
        path: '/api/v3/movie/42',
        status: 'open',
        reopened: false,
      },
    });
  });

  it('discord: content and an embed within Discord’s limits, and never a mention', () => {
    const rendered = renderMessage('discord', {
      ...message,
      title: `@everyone ${'x'.repeat(300)}`,
      text: 'y'.repeat(5000),
      fields: Array.from({ length: 30 }, (_, i) => ({ name: `f${i}`, value: 'z'.repeat(2000) })),
    });
    const body = JSON.parse(rendered.body) as {
      content: string;
      embeds: {
        title: string;
        description: string;
        color: number;
        timestamp: string;
        url: string;
        fields: { value: string }[];
      }[];
      allowed_mentions: { parse: string[] };
    };
    expect(body.allowed_mentions).toEqual({ parse: [] });
    expect(body.content.length).toBeLessThanOrEqual(2000);
    expect(body.embeds).toHaveLength(1);
    const [embed] = body.embeds;
    expect(embed.title.length).toBeLessThanOrEqual(256);
    expect(embed.description.length).toBeLessThanOrEqual(4096);
    expect(embed.fields).toHaveLength(25);
    expect(Math.max(...embed.fields.map((f) => f.value.length))).toBeLessThanOrEqual(1024);
    expect(embed).toMatchObject({ timestamp: AT.toISOString(), url: `${PUBLIC}/warnings?proxyId=${proxy.id}` });
  });

  it('ntfy: the text as the body, Title, Tags, Priority and Click headers, non-ASCII titles encoded', () => {
    const rendered = renderMessage('ntfy', message);
    expect(rendered.body).toContain('Overseerr → Movies was refused GET /api/v3/movie/42');
    expect(rendered.body).toContain('2 more like this');
    expect(rendered.headers).toEqual({
      'Content-Type': 'text/plain; charset=utf-8',
      Title: 'Refused: GET /api/v3/movie/{id}',
      Tags: 'no_entry,arrbiter',
      Priority: '3',
      Click: `${PUBLIC}/warnings?proxyId=${proxy.id}`,
    });
    const unreachable = renderMessage('ntfy', describeNotice(NOTICES[4], AT, 0, PUBLIC));
    expect(unreachable.headers['Priority']).toBe('4');
    const named = renderMessage(
      'ntfy',
      describeNotice(
        { type: 'key.rotated', proxy: { ...proxy, appName: 'Écran' }, actor: 'a', previousKeyValidUntil: null },
        AT,
        0,
        PUBLIC,
      ),
    );
    expect(named.headers['Title']).toBe(`=?UTF-8?B?${Buffer.from('Key rotated: Écran → Movies').toString('base64')}?=`);
  });
});
