import { signal, type Signal } from '@angular/core';
import { describeError } from './api-error';

/** How a call ended: its value, or the sentence that says why it failed. */
export type BusyOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** Busy and error state around a component's calls to the server, as signals. */
export interface BusyAction {
  /** True while a call runs (a button shows it and stays disabled). */
  readonly busy: Signal<boolean>;
  /** The last call's failure, for a person; null once a new call starts or after `clear()`. */
  readonly error: Signal<string | null>;
  /** Runs `work`: busy while it runs, the error cleared first and set if it throws. */
  run<T>(work: () => Promise<T>): Promise<BusyOutcome<T>>;
  clear(): void;
}

/**
 * Busy and error state around async work, the way the pages show it: `busy` while it runs, the
 * server's message (`describeError`, or `describe` for a page's own wording) when it fails.
 */
export function busyAction(options: { describe?: (error: unknown) => string } = {}): BusyAction {
  const describe = options.describe ?? describeError;
  const busy = signal(false);
  const error = signal<string | null>(null);
  let running = 0;
  return {
    busy: busy.asReadonly(),
    error: error.asReadonly(),
    async run<T>(work: () => Promise<T>): Promise<BusyOutcome<T>> {
      running += 1;
      busy.set(true);
      error.set(null);
      try {
        return { ok: true, value: await work() };
      } catch (caught) {
        const message = describe(caught);
        error.set(message);
        return { ok: false, error: message };
      } finally {
        running -= 1;
        busy.set(running > 0);
      }
    },
    clear(): void {
      error.set(null);
    },
  };
}
