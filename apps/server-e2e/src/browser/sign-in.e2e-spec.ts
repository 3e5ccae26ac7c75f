import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { Browser, openBrowser } from '../support/browser';
import { ServerProcess, startServer } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'a long and happy passphrase' };

describe('dashboard sign-in in a real browser', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let browser: Browser;

  beforeAll(async () => {
    database = await createTestDatabase();
    server = await startServer({ ...database.env, ...ADMIN });
    browser = await openBrowser();
  });
  afterEach(async () => {
    const state = expect.getState();
    if (state.assertionCalls > 0 && state.currentTestName && browser) {
      // Keep a picture of where each test ended, failing or not.
      await browser.screenshot(`sign-in--${state.currentTestName.replace(/\W+/g, '-')}`).catch(() => undefined);
    }
  });
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await database?.drop();
  });

  it('sends a signed-out visitor to sign-in, then back to the page they asked for', async () => {
    const { page } = browser;
    // localhost, not 127.0.0.1: the default PUBLIC_URL's origin, which admin writes must come from.
    await page.goto(`http://localhost:${server.port}/apps`);
    await page.getByLabel('Username').waitFor();
    expect(page.url()).toContain('/sign-in?next=%2Fapps');
    await browser.screenshot('sign-in');

    await page.getByLabel('Username').fill('operator');
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.getByRole('alert').textContent()).resolves.toContain('Wrong username or password');

    await page.getByLabel('Password').fill(ADMIN.ADMIN_PASSWORD);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('current-user').waitFor();
    expect(new URL(page.url()).pathname).toBe('/apps');
    await expect(page.getByTestId('current-user').textContent()).resolves.toMatch(/\boperator\b/);
    await browser.screenshot('shell');
  });

  it('navigates between sections and survives a reload', async () => {
    const { page } = browser;
    await page.getByRole('link', { name: 'Services' }).click();
    await page.getByRole('heading', { name: 'Services' }).waitFor();
    await page.reload();
    await page.getByRole('heading', { name: 'Services' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/services');
  });

  it('switches to the dark theme and keeps it', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Use dark theme' }).click();
    // The theme is applied by an effect after the click's change detection: wait for it, then check.
    await page.waitForFunction(() => document.documentElement.dataset['theme'] === 'dark', undefined, {
      timeout: 5_000,
    });
    const background = await page.evaluate(() => getComputedStyle(document.body).backgroundColor);
    expect(background).toBe('rgb(17, 20, 24)');
    await page.reload();
    await page.getByRole('button', { name: 'Use light theme' }).waitFor();
    await expect(page.evaluate(() => document.documentElement.dataset['theme'])).resolves.toBe('dark');
  });

  it('signs out and refuses the shell afterwards', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').waitFor();
    await page.goto(`http://localhost:${server.port}/home`);
    await page.getByLabel('Username').waitFor();
    expect(page.url()).toContain('/sign-in');
  });

  it('logged no console errors', () => {
    expect(browser.errors).toEqual([]);
  });
});
