import type { Page } from 'playwright-core';
import { createTestDatabase, TestDatabase } from '@arrbiter/server/testing';
import { FakeServarr, type FakeServarrOptions } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from './admin-client';
import { Browser, openBrowser, screenshotEachTest, signInThroughDashboard } from './browser';
import { ServerProcess, startServer } from './server-process';

export interface BrowserSuiteOptions {
  /** The first owner, as the server's environment names it. */
  admin: { ADMIN_USERNAME: string; ADMIN_PASSWORD: string };
  /**
   * The server's environment on top of the database's and the admin's (`OPENAPI_SOURCES: 'none'` unless
   * given); a function when it needs something started first (a port, an OIDC provider). Its `PUBLIC_URL`,
   * when set, is the suite's `origin`.
   */
  env?: NodeJS.ProcessEnv | (() => Promise<NodeJS.ProcessEnv>);
  /** A fake Servarr started before the server (and stopped after it). */
  upstream?: FakeServarrOptions;
  /** Signs the admin in through the dashboard's sign-in page once the browser is open (default true). */
  signIn?: boolean;
  /** Names the suite's screenshots (`ARTIFACTS_DIR`). */
  prefix?: string;
  /** A screenshot after each test as well (see `screenshotEachTest`). */
  screenshotEachTest?: boolean;
}

/** What a browser suite runs against; filled in by the suite's first `beforeAll`. */
export interface BrowserSuite {
  database: TestDatabase;
  server: ServerProcess;
  /** Only when the options ask for one. */
  upstream: FakeServarr;
  /** The address the browser opens: `PUBLIC_URL` when the suite sets it, else the server's localhost. */
  origin: string;
  /** The admin's API session (for seeding and for reading what the dashboard did). */
  admin: AdminHttpClient;
  browser: Browser;
  readonly page: Page;
  /** Runs one step of a test; a failing step leaves a screenshot named after it. */
  step<T>(name: string, run: () => Promise<T>): Promise<T>;
}

/**
 * The set-up every browser suite shares: a fresh database, an optional fake Servarr, the production
 * server (`dist/apps/server`), the admin signed in over the API, Chromium open (signed in through the
 * dashboard unless told not to), screenshots after each test; all of it closed after the suite. Call it
 * in the suite's `describe`, before the suite's own hooks: jest runs `beforeAll` hooks in the order they
 * are declared, so the suite's own seeding finds everything running.
 */
export function browserSuite(options: BrowserSuiteOptions): BrowserSuite {
  const prefix = options.prefix ?? 'browser';
  const suite = {
    get page(): Page {
      return suite.browser.page;
    },
    async step<T>(name: string, run: () => Promise<T>): Promise<T> {
      try {
        return await run();
      } catch (error) {
        await suite.browser.screenshot(`${prefix}--FAILED--${name}`).catch(() => undefined);
        throw error;
      }
    },
  } as BrowserSuite;
  beforeAll(async () => {
    suite.database = await createTestDatabase();
    if (options.upstream) suite.upstream = await FakeServarr.start(options.upstream);
    const env = typeof options.env === 'function' ? await options.env() : (options.env ?? {});
    suite.server = await startServer({ ...suite.database.env, ...options.admin, OPENAPI_SOURCES: 'none', ...env });
    suite.origin = env['PUBLIC_URL'] ?? AdminHttpClient.origin(suite.server);
    suite.admin = await AdminHttpClient.signIn(
      suite.server,
      options.admin.ADMIN_USERNAME,
      options.admin.ADMIN_PASSWORD,
    );
    suite.browser = await openBrowser();
    if (options.signIn ?? true)
      await signInThroughDashboard(suite.browser.page, suite.origin, {
        username: options.admin.ADMIN_USERNAME,
        password: options.admin.ADMIN_PASSWORD,
      });
  });
  if (options.screenshotEachTest) screenshotEachTest(() => suite.browser, prefix);
  afterAll(async () => {
    await suite.browser?.close();
    await suite.server?.stop();
    await suite.upstream?.stop();
    await suite.database?.drop();
  });
  return suite;
}
