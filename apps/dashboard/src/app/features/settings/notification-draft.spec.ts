import type { WebhookDto } from '@arrbiter/contracts';
import { describeAttempt, draftOf, listWith, newDraft, urlProblem } from './notification-draft';

const stored: WebhookDto[] = [
  { id: 'w1', url: 'https://discord.com/api/webhooks/1/…', format: 'discord', events: ['key.rotated'], enabled: true },
  {
    id: 'w2',
    url: 'https://ntfy.sh/…',
    format: 'ntfy',
    events: ['service.unreachable', 'warning.new'],
    enabled: false,
  },
];

describe('notification drafts', () => {
  it('checks a URL as the server does; an empty one keeps a stored webhook’s URL', () => {
    expect(urlProblem(newDraft())).toBe('Enter the webhook’s URL.');
    expect(urlProblem(draftOf(stored[0]))).toBeNull();
    expect(urlProblem({ ...newDraft(), url: 'discord.com/x' })).toMatch(/full URL/);
    expect(urlProblem({ ...newDraft(), url: 'ftp://x.example/y' })).toMatch(/https:\/\/ or http:\/\//);
    expect(urlProblem({ ...newDraft(), url: 'https://x.example/y#z' })).toMatch(/fragment/);
    expect(urlProblem({ ...newDraft(), url: stored[0].url })).toMatch(/masked URL/);
    expect(urlProblem({ ...newDraft(), url: ' https://ntfy.sh/arr ' })).toBeNull();
  });

  it('saves the whole list: the others unchanged and without their URLs, the edited one with a new URL only when typed', () => {
    expect(listWith(stored, { save: { ...draftOf(stored[0]), events: ['warning.new', 'key.rotated'] } })).toEqual([
      { id: 'w1', format: 'discord', events: ['warning.new', 'key.rotated'], enabled: true },
      { id: 'w2', format: 'ntfy', events: ['warning.new', 'service.unreachable'], enabled: false },
    ]);
    expect(listWith(stored, { save: { ...draftOf(stored[1]), url: ' https://ntfy.sh/new ' } })[1]).toEqual({
      id: 'w2',
      url: 'https://ntfy.sh/new',
      format: 'ntfy',
      events: ['warning.new', 'service.unreachable'],
      enabled: false,
    });
    expect(
      listWith(stored, { save: { ...newDraft(), url: 'https://ntfy.sh/x', format: 'ntfy', events: [] } }),
    ).toHaveLength(3);
    expect(listWith(stored, { remove: 'w1' }).map((w) => w.id)).toEqual(['w2']);
    expect(listWith(stored, { toggle: 'w2', enabled: true })[1]).toMatchObject({ id: 'w2', enabled: true });
  });

  it('describes an attempt in one line', () => {
    expect(describeAttempt({ event: 'test', at: '', status: 'delivered', httpStatus: 204 })).toBe(
      'Delivered (HTTP 204)',
    );
    expect(describeAttempt({ event: 'test', at: '', status: 'failed', error: 'no answer within 10 s' })).toBe(
      'Failed: no answer within 10 s',
    );
    expect(
      describeAttempt({ event: 'key.rotated', at: '', status: 'retrying', httpStatus: 503, error: 'HTTP 503' }),
    ).toBe('Failed, retrying (HTTP 503): HTTP 503');
  });
});
