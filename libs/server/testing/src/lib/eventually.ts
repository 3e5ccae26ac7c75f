export interface PollOptions {
  /** How long to keep trying (10 s unless said): a safety net, never a measurement. */
  timeoutMs?: number;
  /** The pause between two checks (50 ms unless said). */
  intervalMs?: number;
}

/**
 * Polls `check` until it holds and answers true, or answers false once `timeoutMs` has passed: for a
 * test that reports the failure itself (a fuzz case, a diagnostic) rather than throwing.
 */
export async function holdsWithin(
  check: () => boolean | Promise<boolean>,
  { timeoutMs = 10_000, intervalMs = 50 }: PollOptions = {},
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, intervalMs));
  }
  return true;
}

/**
 * Polls `check` until it holds, for what happens asynchronously (a count written behind, a change
 * crossing to another replica). The bound (10 s) is a safety net, never a measurement: tests do not
 * time things, the bench does.
 */
export async function eventually(
  what: string,
  check: () => boolean | Promise<boolean>,
  options: PollOptions = {},
): Promise<void> {
  const timeoutMs = options.timeoutMs ?? 10_000;
  if (!(await holdsWithin(check, { ...options, timeoutMs })))
    throw new Error(`Not within ${timeoutMs / 1000} s: ${what}`);
}
