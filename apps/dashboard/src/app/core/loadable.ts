import { computed, signal } from '@angular/core';
import { describeError } from '@arrbiter/dashboard/ui';

/**
 * A value fetched from the server, with its loading and error state as signals.
 * The newest `load()` wins: an older answer arriving late never overwrites a newer one.
 */
export class Loadable<T> {
  private readonly state = signal<{ value: T | undefined; loading: boolean; error: string | null }>({
    value: undefined,
    loading: false,
    error: null,
  });
  private generation = 0;

  readonly value = computed(() => this.state().value);
  readonly loading = computed(() => this.state().loading);
  readonly error = computed(() => this.state().error);
  /** Loaded at least once without error. */
  readonly ready = computed(() => this.state().value !== undefined);

  constructor(private readonly fetcher: () => Promise<T>) {}

  async load(): Promise<void> {
    const generation = ++this.generation;
    this.state.update((s) => ({ ...s, loading: true, error: null }));
    try {
      const value = await this.fetcher();
      if (generation === this.generation) this.state.set({ value, loading: false, error: null });
    } catch (error) {
      if (generation === this.generation) {
        this.state.update((s) => ({ ...s, loading: false, error: describeError(error) }));
      }
    }
  }

  /** Replaces the value locally (after a write answered with the new state). */
  set(value: T): void {
    this.state.update((s) => ({ ...s, value }));
  }
}
