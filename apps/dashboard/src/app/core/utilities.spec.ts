import { connectionFields } from '../features/apps/proxy/connection-fields';
import { isLearning, learningDeadline } from '../features/apps/proxy/learning';
import { changeLink } from '../features/changes/change-link';
import type { ChangeDto } from '@arrbiter/contracts';
import { Loadable } from './loadable';
import { relativeTime, slugify } from '@arrbiter/dashboard/ui';

describe('dashboard utilities', () => {
  it('derives host, port, SSL and URL base from a Proxy URL', () => {
    expect(connectionFields('https://arr.example.com/proxy/overseerr')).toEqual({
      host: 'arr.example.com',
      port: 443,
      ssl: true,
      urlBase: '/proxy/overseerr',
    });
    expect(connectionFields('http://10.0.0.2:8080/gw/proxy/ha/')).toEqual({
      host: '10.0.0.2',
      port: 8080,
      ssl: false,
      urlBase: '/gw/proxy/ha',
    });
    expect(connectionFields('not a url')).toBeNull();
  });

  it('caps learning deadlines at 7 days and knows when learning is on', () => {
    const now = Date.parse('2026-01-01T00:00:00Z');
    expect(learningDeadline(24, now)).toBe('2026-01-02T00:00:00.000Z');
    const week = Date.parse(learningDeadline(1000, now)) - now;
    expect(week).toBeLessThan(7 * 86_400_000);
    expect(week).toBeGreaterThan(7 * 86_400_000 - 120_000);
    expect(isLearning('2026-01-01T00:00:01Z', now)).toBe(true);
    expect(isLearning('2025-12-31T23:59:59Z', now)).toBe(false);
    expect(isLearning(null, now)).toBe(false);
  });

  it('links changes to their objects', () => {
    const change = (c: Partial<ChangeDto>) => ({ action: 'x.updated', objectId: 'o1', appId: null, ...c }) as ChangeDto;
    expect(changeLink(change({ objectType: 'app' }))?.commands).toEqual(['/apps', 'o1']);
    expect(changeLink(change({ objectType: 'proxy', appId: 'a1' }))?.commands).toEqual([
      '/apps',
      'a1',
      'proxies',
      'o1',
    ]);
    expect(changeLink(change({ objectType: 'proxy', appId: 'a1', action: 'proxy.deleted' }))?.commands).toEqual([
      '/apps',
      'a1',
    ]);
    expect(changeLink(change({ objectType: 'service' }))?.commands).toEqual(['/services']);
    expect(changeLink(change({ objectType: 'template' }))?.commands).toEqual(['/templates']);
    expect(changeLink(change({ objectType: 'settings', objectName: 'notifications' }))?.commands).toEqual([
      '/settings',
    ]);
    expect(changeLink(change({ objectType: 'settings', objectName: 'Template repository' }))?.commands).toEqual([
      '/settings',
    ]);
    expect(changeLink(change({ objectType: 'session' }))).toBeNull();
  });

  it('suggests slugs and says how long ago', () => {
    expect(slugify('  My App!! 2 ')).toBe('my-app-2');
    expect(slugify('---')).toBe('');
    expect(slugify('x'.repeat(80))).toHaveLength(63);
    const now = Date.parse('2026-01-01T12:00:00Z');
    expect(relativeTime('2026-01-01T11:57:00Z', now)).toBe('3 min ago');
    expect(relativeTime('2026-01-01T14:00:00Z', now)).toBe('in 2 h');
    expect(relativeTime('2026-01-01T12:00:00Z', now)).toBe('just now');
  });

  it('keeps the newest answer of a Loadable and reports errors as text', async () => {
    const answers: ((v: number) => void)[] = [];
    const loadable = new Loadable(() => new Promise<number>((resolve) => answers.push(resolve)));
    const first = loadable.load();
    const second = loadable.load();
    answers[1](2);
    await second;
    answers[0](1);
    await first;
    expect(loadable.value()).toBe(2);

    const failing = new Loadable<number>(() => Promise.reject(new Error('boom')));
    await failing.load();
    expect(failing.error()).toBe('boom');
    expect(failing.loading()).toBe(false);
  });
});
