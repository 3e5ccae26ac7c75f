import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { BrowserContext, chromium, Locator, Page } from 'playwright-core';

/** Screenshots of a run (artifacts, not committed). */
export const ARTIFACTS_DIR = resolve(__dirname, '../../../../artifacts/screenshots');

/** Debian's Chromium (installed by .ci/run); Playwright never downloads a browser here. */
const CHROMIUM = process.env['CHROMIUM_PATH'] ?? '/usr/bin/chromium';

export interface Browser {
  page: Page;
  /** Console errors and uncaught page errors seen so far. */
  errors: string[];
  screenshot(name: string): Promise<void>;
  close(): Promise<void>;
}

/** Expected refusals (wrong passwords, an expired session's next call) that Chromium logs as errors. */
const EXPECTED = [/Failed to load resource: the server responded with a status of 401/];
/** Never expected: the dashboard asks `/api/auth/state` (200 signed out), not the session, on each load. */
const SESSION_CHECK = /\/api\/auth\/session$/;

export async function openBrowser(): Promise<Browser> {
  const profile = mkdtempSync(join(tmpdir(), 'arrbiter-chromium-'));
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const context: BrowserContext = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    viewport: { width: 1280, height: 800 },
    args: [
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
  const page = context.pages()[0] ?? (await context.newPage());
  const errors: string[] = [];
  page.on('console', (message) => {
    // The failing resource's URL last, so that a spec can tell which call failed.
    const url = message.location().url;
    if (message.type() !== 'error') return;
    if (EXPECTED.some((e) => e.test(message.text())) && !SESSION_CHECK.test(url)) return;
    errors.push(url ? `${message.text()} ${url}` : message.text());
  });
  page.on('pageerror', (error) => errors.push(error.message));
  return {
    page,
    errors,
    screenshot: async (name) => {
      await page.screenshot({ path: join(ARTIFACTS_DIR, `${name}.png`), fullPage: true });
    },
    close: async () => {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

/** Signs in through the dashboard's sign-in page and waits for Home. */
export async function signInThroughDashboard(
  page: Page,
  origin: string,
  { username, password }: { username: string; password: string },
): Promise<void> {
  await page.goto(`${origin}/sign-in`);
  await page.getByLabel('Username').fill(username);
  await page.getByLabel('Password').fill(password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('heading', { name: 'Home' }).waitFor();
}

/**
 * A screenshot of the page after each test of the suite, named by the test (kept in `ARTIFACTS_DIR` for
 * a reader of a failed run); `browser` is read when the test ends (the suite opens it in `beforeAll`).
 */
export function screenshotEachTest(browser: () => Browser | undefined, prefix: string): void {
  afterEach(async () => {
    const name = expect.getState().currentTestName;
    const open = browser();
    if (name && open) await open.screenshot(`${prefix}--${name.replace(/\W+/g, '-')}`).catch(() => undefined);
  });
}

/**
 * `locator.click()`, and when it fails, an error that starts with what the page looked like: the
 * element's box on two frames, what is at its centre, an open dialog, the URL. A CI run's summary
 * shows a failure's first lines; Playwright's own call log comes after and may be cut.
 */
export async function clickOrExplain(locator: Locator, timeout = 30_000): Promise<void> {
  try {
    await locator.click({ timeout });
  } catch (error) {
    const state = await locator
      .evaluate(
        (element) =>
          new Promise<Record<string, unknown>>((done) => {
            const box = () => {
              const r = element.getBoundingClientRect();
              return [r.x, r.y, r.width, r.height].map(Math.round).join(',');
            };
            const first = box();
            requestAnimationFrame(() =>
              requestAnimationFrame(() => {
                const r = element.getBoundingClientRect();
                const hit = document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2);
                const style = getComputedStyle(element);
                done({
                  boxes: [first, box()],
                  viewport: `${window.innerWidth}x${window.innerHeight} scrollY=${Math.round(window.scrollY)}`,
                  visibility: `${style.visibility} display=${style.display} opacity=${style.opacity}`,
                  atCentre: hit === element ? 'itself' : (hit?.outerHTML.slice(0, 160) ?? null),
                  dialog: document.querySelector('dialog[open]')?.textContent?.slice(0, 160) ?? null,
                  focused: document.activeElement?.outerHTML.slice(0, 100) ?? null,
                  hidden: document.hidden,
                });
              }),
            );
          }),
        undefined,
        { timeout: 5_000 },
      )
      .catch((reason: Error) => ({ unreadable: reason.message.split('\n')[0] }));
    const url = locator.page().url();
    throw new Error(`click failed at ${url}: ${JSON.stringify(state)}\n${(error as Error).message}`);
  }
}
