import type { Page } from '@arrbiter/contracts';
import { PagedList } from './paged-list';

describe('PagedList', () => {
  it('starts over on a fresh load and appends the next page with the cursor', async () => {
    const cursors: (string | null)[] = [];
    const pages: Page<number>[] = [
      { items: [1, 2], nextCursor: 'c1' },
      { items: [3], nextCursor: null },
      { items: [9], nextCursor: null },
    ];
    const list = new PagedList<number>((cursor) => {
      cursors.push(cursor);
      return Promise.resolve(pages[cursors.length - 1]);
    });
    await list.load(true);
    expect(list.items()).toEqual([1, 2]);
    expect(list.nextCursor()).toBe('c1');
    await list.load(false);
    expect(list.items()).toEqual([1, 2, 3]);
    expect(list.nextCursor()).toBeNull();
    await list.load(true);
    expect(list.items()).toEqual([9]);
    expect(cursors).toEqual([null, 'c1', null]);
    expect(list.loaded()).toBe(true);
    expect(list.loading()).toBe(false);
  });

  it('keeps the newest answer and reports errors', async () => {
    let release: (page: Page<string>) => void = () => undefined;
    let calls = 0;
    const list = new PagedList<string>(() => {
      calls += 1;
      if (calls === 1) return new Promise((resolve) => (release = resolve));
      if (calls === 2) return Promise.resolve({ items: ['new'], nextCursor: null });
      return Promise.reject(new Error('offline'));
    });
    const slow = list.load(true);
    await list.load(true);
    release({ items: ['old'], nextCursor: 'x' });
    await slow;
    expect(list.items()).toEqual(['new']);
    await list.load(true);
    expect(list.error()).toBe('offline');
    expect(list.items()).toEqual(['new']);
  });
});
