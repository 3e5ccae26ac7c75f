/**
 * Polls `check` until it holds, for what happens asynchronously (a count written behind, a change
 * crossing to another replica). The bound (10 s) is a safety net, never a measurement: tests do not
 * time things, the bench does.
 */
export async function eventually(what: string, check: () => boolean | Promise<boolean>): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`Not within 10 s: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}
