import { computed, signal, type Signal } from '@angular/core';
import { describeError } from './api-error';

/** How a call ended: its value, or the sentence that says why it failed. */
export type BusyOutcome<T> = { ok: true; value: T } | { ok: false; error: string };

/** A line the page shows after a call: a success (`role=status`) or a failure (`role=alert`). */
export interface Notice {
  ok: boolean;
  text: string;
}

/** Busy and error state around a component's calls to the server, as signals. */
export interface BusyAction {
  /** True while a call runs (a button shows it and stays disabled). */
  readonly busy: Signal<boolean>;
  /** The last call's outcome in words: the `done` text it was given, or why it failed. */
  readonly notice: Signal<Notice | null>;
  /** The last call's failure, for a person; null once a new call starts or after `clear()`. */
  readonly error: Signal<string | null>;
  /**
   * Runs `work`: busy while it runs, the notice cleared first, then set to `done` (a text, or one
   * made from the value) when it succeeds, or to the failure's sentence when it throws.
   */
  run<T>(work: () => Promise<T>, done?: string | ((value: T) => string)): Promise<BusyOutcome<T>>;
  /** Shows a notice that comes from the page, not from a call (a check before sending). */
  say(notice: Notice | null): void;
  clear(): void;
}

/**
 * Busy and error state around async work, the way the pages show it: `busy` while it runs, the
 * server's message (`describeError`, or `describe` for a page's own wording) when it fails.
 */
export function busyAction(options: { describe?: (error: unknown) => string } = {}): BusyAction {
  const describe = options.describe ?? describeError;
  const busy = signal(false);
  const notice = signal<Notice | null>(null);
  let running = 0;
  return {
    busy: busy.asReadonly(),
    notice: notice.asReadonly(),
    error: computed(() => {
      const current = notice();
      return current && !current.ok ? current.text : null;
    }),
    async run<T>(work: () => Promise<T>, done?: string | ((value: T) => string)): Promise<BusyOutcome<T>> {
      running += 1;
      busy.set(true);
      notice.set(null);
      try {
        const value = await work();
        if (done !== undefined) notice.set({ ok: true, text: typeof done === 'string' ? done : done(value) });
        return { ok: true, value };
      } catch (caught) {
        const message = describe(caught);
        notice.set({ ok: false, text: message });
        return { ok: false, error: message };
      } finally {
        running -= 1;
        busy.set(running > 0);
      }
    },
    say(value: Notice | null): void {
      notice.set(value);
    },
    clear(): void {
      notice.set(null);
    },
  };
}
