import type { Page } from 'playwright-core';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { AdminHttpClient } from '../support/admin-client';
import { axeViolations, useTheme } from '../support/axe';
import { Browser, openBrowser, screenshotEachTest } from '../support/browser';
import { runCommand, ServerProcess, startServer } from '../support/server-process';

const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };

/**
 * The first owner is created with a generated password (no ADMIN_USERNAME/ADMIN_PASSWORD): its first
 * sign-in asks to choose one; the owner may keep it instead, and an account `reset-password` gave a
 * generated password must choose.
 */
describe('first sign-in with a generated password, in a real browser', () => {
  let database: TestDatabase;
  let server: ServerProcess;
  let browser: Browser;
  let env: NodeJS.ProcessEnv;
  let password: string;
  /** The first start's output: the server is restarted for reset-password. */
  let firstOutput: string;

  beforeAll(async () => {
    database = await createTestDatabase();
    env = { ...database.env, OPENAPI_SOURCES: 'none', LOG_LEVEL: 'warn' };
    server = await startServer(env);
    firstOutput = server.output();
    password = /generated password: (\S+)/.exec(firstOutput)?.[1] ?? '';
    browser = await openBrowser();
  });
  screenshotEachTest(() => browser, 'first-password');
  afterAll(async () => {
    await browser?.close();
    await server?.stop();
    await database?.drop();
  });

  const origin = () => AdminHttpClient.origin(server);

  async function signIn(page: Page, username: string, pass: string): Promise<void> {
    await page.goto(`${origin()}/sign-in`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password', { exact: true }).fill(pass);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function signOut(page: Page): Promise<void> {
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('Username').waitFor();
  }

  it('asks the owner to choose a password after signing in; accessible, light and dark, and fits a phone', async () => {
    const { page } = browser;
    await signIn(page, 'admin', password);
    await page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/choose-password');
    await page.getByRole('button', { name: 'Keep the generated password' }).waitFor();
    // Elsewhere in the dashboard, the step comes first.
    await page.goto(`${origin()}/apps`);
    await page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    expect(page.url()).toContain('/choose-password?next=%2Fapps');

    for (const theme of ['light', 'dark'] as const) {
      await useTheme(page, theme);
      await page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
      await page.getByLabel('New password', { exact: true }).fill('short');
      expect(await axeViolations(page)).toEqual([]);
      await page.setViewportSize(PHONE);
      try {
        await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
        const sideways = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
        expect({ theme, sideways }).toEqual({ theme, sideways: 0 });
      } finally {
        await page.setViewportSize(DESKTOP);
      }
    }
    await useTheme(page, 'light');
  });

  it('keeps the generated password for the owner: not asked again', async () => {
    const { page } = browser;
    await page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    await page.getByRole('button', { name: 'Keep the generated password' }).click();
    await page.getByRole('heading', { name: 'Apps' }).waitFor();
    await signOut(page);
    await signIn(page, 'admin', password);
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    expect(new URL(page.url()).pathname).toBe('/home');
  });

  it('makes an editor that reset-password gave a generated password choose one', async () => {
    const { page } = browser;
    const owner = await AdminHttpClient.signIn(server, 'admin', password);
    await owner.request('POST', '/api/admin/v1/admins', {
      username: 'ed',
      password: 'editor passphrase 1',
      role: 'editor',
    });
    await signOut(page);
    // As documented: reset-password runs with the server stopped (the embedded database serves one process).
    await server.stop();
    const reset = runCommand(['reset-password', 'ed'], env);
    expect({ status: reset.status, output: reset.output }).toEqual({ status: 0, output: expect.any(String) });
    const generated = /New password of "ed" \(shown once\): (\S+)/.exec(reset.output)?.[1] ?? '';
    expect(generated).toMatch(/^[A-Za-z0-9_-]{24}$/);
    server = await startServer(env);

    await signIn(page, 'ed', generated);
    await page.getByRole('heading', { name: 'Choose your own password' }).waitFor();
    expect(await page.getByRole('button', { name: 'Keep the generated password' }).count()).toBe(0);
    await page.getByLabel('New password', { exact: true }).fill('chosen by ed 1234');
    // The hint is there before typing: wait for it to say so rather than read it straight after the keys.
    await page.getByTestId('strength').filter({ hasText: 'Strong' }).waitFor();
    await page.getByLabel('New password again').fill('chosen by ed 1234');
    await page.getByRole('button', { name: 'Save my password' }).click();
    await page.getByRole('heading', { name: 'Home' }).waitFor();

    await signOut(page);
    await signIn(page, 'ed', 'chosen by ed 1234');
    await page.getByRole('heading', { name: 'Home' }).waitFor();
    expect(browser.errors.filter((e) => !/status of 40[13]/.test(e))).toEqual([]);
  });

  it('printed the framed block and one warn line at LOG_LEVEL=warn (checked last: the page is open)', () => {
    expect(password).toMatch(/^[A-Za-z0-9_-]{24}$/);
    const output = firstOutput;
    expect(output).toContain(`${'='.repeat(78)}\n  Arrbiter created the first administrator.`);
    const lines = output.split('\n').filter((line) => line.includes('Created the first administrator'));
    expect(lines).toHaveLength(1);
    expect(JSON.parse(lines[0])).toMatchObject({ level: 40 });
    expect(lines[0]).not.toContain(password);
  });
});
