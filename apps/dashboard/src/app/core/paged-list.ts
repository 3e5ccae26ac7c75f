import { signal } from '@angular/core';
import type { Page } from '@arrbiter/contracts';
import { describeError } from '@arrbiter/dashboard/ui';

/**
 * A cursor-paged list from the server (`{items, nextCursor}`), with loading and error state as
 * signals: `load(true)` starts over, `load(false)` appends the next page. The newest load wins.
 */
export class PagedList<T> {
  readonly items = signal<T[]>([]);
  readonly nextCursor = signal<string | null>(null);
  readonly loading = signal(false);
  /** Loaded at least once without error. */
  readonly loaded = signal(false);
  readonly error = signal<string | null>(null);
  private generation = 0;

  constructor(private readonly fetchPage: (cursor: string | null) => Promise<Page<T>>) {}

  async load(fresh: boolean): Promise<void> {
    const generation = ++this.generation;
    this.loading.set(true);
    this.error.set(null);
    try {
      const page = await this.fetchPage(fresh ? null : this.nextCursor());
      if (generation !== this.generation) return;
      this.items.update((list) => (fresh ? page.items : [...list, ...page.items]));
      this.nextCursor.set(page.nextCursor);
      this.loaded.set(true);
    } catch (error) {
      if (generation === this.generation) this.error.set(describeError(error));
    } finally {
      if (generation === this.generation) this.loading.set(false);
    }
  }
}
