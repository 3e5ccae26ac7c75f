import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { freePort } from '@arrbiter/tools/fake-servarr';
import { axeViolations } from '../support/axe';
import { Browser, openBrowser } from '../support/browser';
import { ServerProcess, startServer } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'a long and happy passphrase' };

/** Signs in on the sign-in page the browser is on and waits for the shell. */
async function signIn(browser: Browser): Promise<void> {
  const { page } = browser;
  await page.getByLabel('Username').fill(ADMIN.ADMIN_USERNAME);
  await page.getByLabel('Password').fill(ADMIN.ADMIN_PASSWORD);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByTestId('current-user').waitFor();
}

/** The dashboard at any address with PUBLIC_URL unset, and under the sub-path PUBLIC_URL names. */
describe('where the dashboard is served from, in a real browser', () => {
  let database: TestDatabase;
  let server: ServerProcess | undefined;
  let browser: Browser;

  beforeAll(async () => {
    database = await createTestDatabase();
    browser = await openBrowser();
  });
  afterEach(async () => {
    const state = expect.getState();
    if (state.currentTestName && browser) {
      await browser.screenshot(`public-url--${state.currentTestName.replace(/\W+/g, '-')}`).catch(() => undefined);
    }
    await server?.stop();
    server = undefined;
  });
  afterAll(async () => {
    await browser?.close();
    await database?.drop();
  });

  it('signs in at an address other than localhost with PUBLIC_URL unset, and asks to set it', async () => {
    server = await startServer({ ...database.env, ...ADMIN, PUBLIC_URL: '' });
    const { page } = browser;
    await page.goto(`http://127.0.0.1:${server.port}/apps`);
    await page.getByLabel('Username').waitFor();
    await signIn(browser);
    await page.getByRole('heading', { name: 'Apps' }).waitFor();
    const notice = page.getByTestId('public-url-notice');
    await expect(notice.textContent()).resolves.toContain('PUBLIC_URL');
    await expect(notice.getAttribute('role')).resolves.toBe('status');
    expect(server.output()).toContain('PUBLIC_URL is unset');
    for (const theme of ['light', 'dark']) {
      await page.evaluate((name) => (document.documentElement.dataset['theme'] = name), theme);
      expect(await axeViolations(page)).toEqual([]);
    }
    await page.evaluate(() => (document.documentElement.dataset['theme'] = 'light'));
    await notice.getByRole('button', { name: 'Dismiss' }).click();
    await notice.waitFor({ state: 'detached' });
    await page.reload();
    await page.getByRole('heading', { name: 'Apps' }).waitFor();
    expect(await page.getByTestId('public-url-notice').count()).toBe(0);
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').waitFor();
  });

  it('serves the dashboard, its API calls and its cookie under PUBLIC_URL=http://127.0.0.1:PORT/arrbiter', async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}/arrbiter`;
    server = await startServer({ ...database.env, ...ADMIN, PORT: String(port), PUBLIC_URL: base });
    const { page } = browser;
    const calls: string[] = [];
    page.on('request', (request) => {
      if (new URL(request.url()).pathname.includes('/api/')) calls.push(new URL(request.url()).pathname);
    });
    await page.goto(`${base}/`);
    await page.getByLabel('Username').waitFor();
    expect(new URL(page.url()).pathname).toBe('/arrbiter/sign-in');
    await signIn(browser);
    await page.getByRole('link', { name: 'Apps', exact: true }).click();
    await page.getByRole('heading', { name: 'Apps' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/arrbiter/apps');
    expect(calls.length).toBeGreaterThan(0);
    expect(calls.filter((path) => !path.startsWith('/arrbiter/api/'))).toEqual([]);
    const cookies = await page.context().cookies(base);
    expect(cookies.find((c) => c.name === 'arrbiter_session')?.path).toBe('/arrbiter');
    // Set: no banner.
    expect(await page.getByTestId('public-url-notice').count()).toBe(0);
    expect(await axeViolations(page)).toEqual([]);
    // A reload deep inside keeps working (index.html under the prefix, with its base).
    await page.reload();
    await page.getByRole('heading', { name: 'Apps' }).waitFor();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').waitFor();
    expect(new URL(page.url()).pathname).toBe('/arrbiter/sign-in');
  });

  it('logged no console errors', () => {
    expect(browser.errors).toEqual([]);
  });
});
