import { resolve } from 'node:path';
import type { ConsoleMessage, Page } from 'playwright-core';
import type { ProxyDto } from '@arrbiter/contracts';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { axeViolations, useTheme } from '../support/axe';
import { Browser } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { ServerProcess } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'operator workflows passphrase' };
const PREFIX = 'operator';
/** The project's copy of the community template repository, synced as a local directory. */
const TEMPLATE_REPO = resolve(__dirname, '../../../../libs/server/template-sync/src/testing/template-repo');

/** A section link of the shell's navigation. */
const nav = (page: Page, name: string) =>
  page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name });

describe('operator workflows in a real browser', () => {
  const suite = browserSuite({
    admin: ADMIN,
    // The repository below is a local directory set through the dashboard: it must be inside TEMPLATE_ROOT.
    env: { TEMPLATE_ROOT: TEMPLATE_REPO },
    upstream: { type: 'radarr', instanceName: 'Movies' },
    signIn: false,
    prefix: PREFIX,
    screenshotEachTest: true,
  });
  let server: ServerProcess;
  let upstream: FakeServarr;
  let browser: Browser;
  let origin: string;
  let proxyKey = '';
  let proxyUrl = '';
  let proxyId = '';
  let proxyPage = '';
  /** Console errors with the URL they came from; expected refusals are filtered at the end. */
  const consoleErrors: { text: string; url: string }[] = [];

  async function cookie(): Promise<string> {
    const cookies = await browser.page.context().cookies();
    const session = cookies.find((c) => c.name === 'arrbiter_session');
    return session ? `${session.name}=${session.value}` : '';
  }

  /** The admin API with the browser's session. */
  async function api<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await fetch(`${server.url}${path}`, {
      method,
      headers: { cookie: await cookie(), origin, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    expect(response.status).toBe(200);
    return (await response.json()) as T;
  }

  const { step } = suite;

  async function callProxy(path: string, method = 'GET'): Promise<number> {
    const response = await fetch(`${server.url}/proxy/overseerr${path}`, {
      method,
      headers: { 'x-api-key': proxyKey },
    });
    await response.arrayBuffer();
    return response.status;
  }

  beforeAll(async () => {
    ({ server, upstream, browser, origin } = suite);
    await browser.page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin });
    browser.page.on('console', (message: ConsoleMessage) => {
      if (message.type() === 'error') consoleErrors.push({ text: message.text(), url: message.location().url });
    });
  });

  it('signs in and shows the home page', async () => {
    const { page } = browser;
    await step('sign-in', async () => {
      await page.goto(`${origin}/home`);
      await page.getByLabel('Username').fill(ADMIN.ADMIN_USERNAME);
      await page.getByLabel('Password').fill(ADMIN.ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByRole('heading', { name: 'Home' }).waitFor();
      await page.getByText('services', { exact: false }).first().waitFor();
    });
    await browser.screenshot(`${PREFIX}-home`);
  });

  it('syncs templates from the repository: settings, preview, then sync', async () => {
    const { page } = browser;
    await step('templates', async () => {
      // The repository's settings are in Settings; Templates links there.
      await nav(page, 'Templates').click();
      await page.getByRole('heading', { name: 'Template repository' }).waitFor();
      await page.getByRole('link', { name: 'Settings → Template repository' }).click();
      await expect(page.locator('#template-repository h2').evaluate((h) => h === document.activeElement)).resolves.toBe(
        true,
      );
      await page.getByLabel('Repository', { exact: true }).fill(TEMPLATE_REPO);
      await page.getByLabel('Branch, tag or commit').fill('');
      await page.getByLabel('Folder').fill('');
      await page.getByLabel('Sync every (minutes)').fill('0');
      await page.getByRole('button', { name: 'Save settings' }).click();
      await page.getByText('Repository settings saved.').waitFor();
      await nav(page, 'Templates').click();
      await page.getByTestId('repo-source').getByText(TEMPLATE_REPO).waitFor();
      await page.getByRole('button', { name: 'Preview sync' }).click();
      const report = page.getByRole('region', { name: 'Sync report' });
      await report.getByText('New templates:').waitFor();
      expect(await report.textContent()).toContain('overseerr');
      await browser.screenshot(`${PREFIX}-templates-preview`);
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Sync now' }).click();
      await page.getByRole('article', { name: 'overseerr' }).waitFor();
    });
    await browser.screenshot(`${PREFIX}-templates`);
  });

  it('creates a service: shows the exact failure, then what discovery found', async () => {
    const { page } = browser;
    await step('service', async () => {
      await nav(page, 'Services').click();
      await page.getByRole('heading', { name: 'Services' }).waitFor();
      await page.getByRole('button', { name: 'Add service' }).click();
      await page.getByLabel('Base URL').fill(upstream.url);
      await page.getByLabel('API key').fill('0'.repeat(32));
      await page.getByRole('button', { name: 'Add service' }).click();
      const failure = page.getByRole('alert');
      await failure.waitFor();
      expect((await failure.textContent())?.trim().length).toBeGreaterThan(10);

      await page.getByLabel('API key').fill(upstream.options.apiKey);
      await page.getByRole('button', { name: 'Add service' }).click();
      await page.getByText('Found radarr “Movies”').waitFor();
      await page.getByTestId('service-Movies').waitFor();
      expect(await page.getByTestId('service-Movies').textContent()).toContain(upstream.url);
    });
    const services = (await (
      await fetch(`${server.url}/api/admin/v1/services`, { headers: { cookie: await cookie() } })
    ).json()) as unknown[];
    expect(services).toHaveLength(1);
    await page.getByTestId('service-Movies').getByText('Reachable').waitFor();
    await browser.screenshot(`${PREFIX}-services`);
  });

  it('creates an app from a template; the slug follows the name', async () => {
    const { page } = browser;
    await step('app', async () => {
      await nav(page, 'Apps').click();
      await page.getByRole('button', { name: 'New app' }).click();
      await page.getByLabel('Name').fill('Overseerr');
      // Typing only schedules the render: the hint under the slug says when the slug has followed.
      await page.getByText('In the proxy URL: /proxy/overseerr').waitFor();
      expect(await page.getByLabel('Slug').inputValue()).toBe('overseerr');
      await page.getByLabel('Template', { exact: true }).selectOption({ label: 'overseerr' });
      await page.getByRole('button', { name: 'Create app' }).click();
      await page.getByRole('heading', { name: 'Overseerr' }).waitFor();
      await page.getByText('Template: overseerr').waitFor();
    });
    await browser.screenshot(`${PREFIX}-app-detail`);
  });

  it('adds a proxy, reveals and copies its key, and the how-to derives the URL base', async () => {
    const { page } = browser;
    await step('proxy', async () => {
      await page.getByLabel('Add a proxy for').selectOption({ label: 'Movies (radarr)' });
      await page.getByRole('button', { name: 'Add proxy' }).click();
      await page.getByRole('heading', { name: 'Connection details' }).waitFor();
      proxyId = /\/proxies\/([^/]+)\/connection/.exec(page.url())?.[1] ?? '';
      proxyPage = page.url();
      expect(proxyId).toMatch(/^[0-9a-f-]{36}$/);

      const key = page.getByTestId('proxy-key');
      expect(await key.textContent()).not.toMatch(/[0-9a-f]{32}/);
      await page.getByRole('button', { name: 'Reveal key' }).click();
      await key.filter({ hasText: /^\s*[0-9a-f]{32}\s*$/ }).waitFor();
      proxyKey = ((await key.textContent()) ?? '').trim();
      expect(proxyKey).toMatch(/^[0-9a-f]{32}$/);
      await page.getByRole('button', { name: 'Copy key' }).click();
      await page.getByRole('button', { name: 'Copy key' }).getByText('Copied').waitFor();
      await expect(page.evaluate(() => navigator.clipboard.readText())).resolves.toBe(proxyKey);

      proxyUrl = ((await page.getByTestId('proxy-url').textContent()) ?? '').trim();
      expect(proxyUrl).toBe(`${origin}/proxy/overseerr`);
      await page.getByText('How to connect a client').click();
      await page.getByText('/proxy/overseerr', { exact: true }).waitFor();
    });
    await browser.screenshot(`${PREFIX}-proxy-connection`);
  });

  it('shows a refused call in the warnings view', async () => {
    const { page } = browser;
    // The template grants movie reads; the calendar is refused.
    expect(await callProxy('/api/v3/movie')).toBe(200);
    expect(await callProxy('/api/v3/calendar')).toBe(403);
    await step('warnings', async () => {
      await nav(page, 'Warnings').click();
      await page.getByRole('heading', { name: 'Warnings' }).waitFor();
      const row = page.getByTestId('warning-get-/api/v3/calendar');
      // Warnings are recorded asynchronously: refresh until it shows.
      for (let i = 0; i < 20 && !(await row.isVisible()); i++) {
        await page.waitForTimeout(250);
        await page.getByRole('button', { name: 'Refresh' }).click();
      }
      await row.waitFor();
      expect(await row.textContent()).toContain('Overseerr');
      expect(await row.textContent()).toContain('open');
    });
    await browser.screenshot(`${PREFIX}-warnings`);
  });

  it('grants a warning with one click and the call passes; dismisses another', async () => {
    const { page } = browser;
    expect(await callProxy('/api/v3/system/backup')).toBe(403);
    await step('grant', async () => {
      await page.goto(`${origin}/warnings?status=open`);
      const grant = page.getByRole('button', { name: 'Grant GET /api/v3/calendar' });
      const backup = page.getByTestId('warning-get-/api/v3/system/backup');
      for (let i = 0; i < 20 && !((await grant.isVisible()) && (await backup.isVisible())); i++) {
        await page.waitForTimeout(250);
        await page.getByRole('button', { name: 'Refresh' }).click();
      }
      await grant.click();
      await page.getByText('Granted GET /api/v3/calendar.').waitFor();
      await backup.getByRole('button', { name: 'Dismiss' }).click();
      await page.getByText('Dismissed GET /api/v3/system/backup.').waitFor();
    });
    expect(await callProxy('/api/v3/calendar')).toBe(200);
    expect(await callProxy('/api/v3/system/backup')).toBe(403);
    await browser.screenshot(`${PREFIX}-warnings-granted`);
  });

  it('edits permissions: a draft with counts and a diff, guarded on leave, then saved', async () => {
    const { page } = browser;
    expect(await callProxy('/api/v3/movie/3', 'DELETE')).toBe(403);
    await step('endpoints', async () => {
      await page.goto(`${origin}/apps`);
      await page.getByRole('link', { name: 'Overseerr' }).click();
      await page.getByRole('link', { name: 'Endpoints' }).click();
      await page.getByLabel('Search API paths').fill('/api/v3/movie/{id}');
      await page.getByLabel('DELETE /api/v3/movie/{id}', { exact: true }).check();
      await page.getByTestId('draft-added').filter({ hasText: '+1 added' }).waitFor();
      await page.getByTestId('draft-removed').filter({ hasText: '−0 removed' }).waitFor();
      await page.getByRole('button', { name: 'Review changes' }).click();
      await page.getByText('/api/v3/movie/{id}', { exact: true }).last().waitFor();
      await browser.screenshot(`${PREFIX}-endpoints-draft`);

      // Leaving with a draft asks first; cancelling stays.
      await page.getByRole('link', { name: 'History' }).click();
      await page.getByRole('heading', { name: 'Discard unsaved changes?' }).waitFor();
      await page.getByRole('button', { name: 'Cancel' }).click();
      expect(page.url()).toContain('/endpoints');

      await page.getByRole('button', { name: 'Save configuration' }).click();
      // DELETE is destructive: saving it asks first, naming what it opens.
      const dialog = page.getByRole('dialog');
      expect(await dialog.getByTestId('confirm-items').textContent()).toContain('DELETE /api/v3/movie/{id}');
      await dialog.getByRole('button', { name: 'Save', exact: true }).click();
      await page.getByText('Configuration saved: 1 grant added, 0 removed.').waitFor();
    });
    expect(await callProxy('/api/v3/movie/3', 'DELETE')).toBe(200);
    expect(await callProxy('/api/v3/movie/3')).toBe(200);
    await browser.screenshot(`${PREFIX}-endpoints`);
  });

  it('starts and stops learning mode', async () => {
    const { page } = browser;
    await step('learning', async () => {
      await page.goto(`${origin}/warnings?proxyId=${proxyId}`);
      await page.getByLabel('Learn for').selectOption({ label: '1 hour' });
      await page.getByRole('button', { name: 'Start learning' }).click();
      await page.getByRole('button', { name: 'Stop learning' }).waitFor();
      await browser.screenshot(`${PREFIX}-learning`);
      await page.getByRole('button', { name: 'Stop learning' }).click();
      await page.getByRole('button', { name: 'Start learning' }).waitFor();
    });
  });

  it('limits a proxy and turns its scrubbing off, and sets the defaults for new proxies', async () => {
    const { page } = browser;
    await step('limits', async () => {
      await page.goto(proxyPage);
      const limits = page.getByRole('form', { name: 'Rate limit and responses' });
      await limits.getByLabel('Limit how often the client may call').check();
      await limits.getByLabel('Calls per minute').fill('0');
      await limits.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Calls per minute must be a whole number from 1 to 6000.').waitFor();
      await limits.getByLabel('Calls per minute').fill('120');
      await limits.getByLabel('Burst (calls at once)').fill('5');
      await limits.getByLabel('Hide the service’s own key and address in responses').uncheck();
      await limits.getByRole('button', { name: 'Save' }).click();
      await page.getByText('Saved: the next call sees it.').waitFor();
      await browser.screenshot(`${PREFIX}-limits`);
      const saved = await api<ProxyDto>('GET', `/api/admin/v1/proxies/${proxyId}`);
      expect(saved).toMatchObject({ rateLimit: { perMinute: 120, burst: 5 }, scrub: false });
      // Back to how the other steps expect the proxy.
      await limits.getByLabel('Limit how often the client may call').uncheck();
      await limits.getByLabel('Hide the service’s own key and address in responses').check();
      await limits.getByRole('button', { name: 'Save' }).click();
      // The first save's message is still there: wait for the state this save writes.
      const lifted = (proxy: ProxyDto) => proxy.rateLimit === null && proxy.scrub;
      let saved2 = await api<ProxyDto>('GET', `/api/admin/v1/proxies/${proxyId}`);
      for (let attempt = 0; attempt < 100 && !lifted(saved2); attempt += 1) {
        await page.waitForTimeout(100);
        saved2 = await api<ProxyDto>('GET', `/api/admin/v1/proxies/${proxyId}`);
      }
      expect(saved2).toMatchObject({ rateLimit: null, scrub: true });
      await page.getByText('Saved: the next call sees it.').waitFor();
    });
    await step('proxy defaults', async () => {
      await page.goto(`${origin}/settings`);
      await page.getByLabel('Limit how often the client may call').check();
      await page.getByLabel('Calls per minute').fill('600');
      await page.getByLabel('Burst (calls at once)').fill('50');
      await page.getByRole('button', { name: 'Save defaults' }).click();
      await page.getByText('Saved: proxies created from now on start with these.').waitFor();
      expect(await api('GET', '/api/admin/v1/settings/proxy-defaults')).toEqual({
        rateLimit: { perMinute: 600, burst: 50 },
        scrub: true,
      });
      await api('PUT', '/api/admin/v1/settings/proxy-defaults', { rateLimit: null, scrub: true });
    });
  });

  it('shows the history, compares a revision and restores it', async () => {
    const { page } = browser;
    await step('history', async () => {
      await page.goto(`${origin}/apps`);
      await page.getByRole('link', { name: 'Overseerr' }).click();
      await page.getByRole('link', { name: 'History' }).click();
      // Newest first: the oldest revision is the proxy as it was created (the template alone).
      await page.getByText('Proxy created', { exact: false }).last().waitFor();
      const compare = page.getByRole('button', { name: 'Compare with current' });
      await compare.last().click();
      await page.getByText('Restoring it would change:').waitFor();
      await browser.screenshot(`${PREFIX}-history`);
      await page.getByRole('button', { name: 'Restore', exact: true }).last().click();
      await page.getByRole('heading', { name: 'Restore this revision?' }).waitFor();
      await page.getByRole('dialog').getByRole('button', { name: 'Restore' }).click();
      await page.getByText(/^Restored:/).waitFor();
    });
    // Back to the template alone: the grant from the warning and the edit are gone, the key still works.
    expect(await callProxy('/api/v3/calendar')).toBe(403);
    expect(await callProxy('/api/v3/movie/3', 'DELETE')).toBe(403);
    expect(await callProxy('/api/v3/movie')).toBe(200);
  });

  it('shows it all in recent changes, with links to the objects', async () => {
    const { page } = browser;
    await step('changes', async () => {
      await nav(page, 'Recent changes').click();
      await page.getByRole('heading', { name: 'Recent changes' }).waitFor();
      const table = page.getByRole('table', { name: 'Changes' });
      await table.waitFor();
      // Sign-ins are left out until asked for.
      await page.getByLabel('Show sign-ins').check();
      for (const text of [
        'Templates synced',
        'registered',
        'App "Overseerr"',
        'Proxy created',
        'Granted from warnings',
        'Configuration saved',
        'Revision restored',
        'Signed in',
      ])
        await table.getByText(text, { exact: false }).first().waitFor();
      await browser.screenshot(`${PREFIX}-changes`);
      await page.getByLabel('Object').selectOption('service');
      await page.getByRole('link', { name: 'Movies' }).first().waitFor();
    });
  });

  it('saves an app as a template', async () => {
    const { page } = browser;
    await step('save-as-template', async () => {
      await page.goto(`${origin}/apps`);
      await page.getByRole('link', { name: 'Overseerr' }).click();
      await page.getByRole('button', { name: 'Save as template' }).click();
      await page.getByLabel('New template’s name').fill('Overseerr (from app)');
      await page.getByRole('button', { name: 'Save template' }).click();
      await page.getByText('Saved as template “Overseerr (from app)”.').waitFor();
    });
  });

  it('finds apps on the Apps page: search and filters kept in the URL, no match, and no WCAG 2.1 AA violation light or dark', async () => {
    const { page } = browser;
    const headers = { cookie: await cookie(), origin, 'content-type': 'application/json' };
    for (const app of [
      { name: 'Script 100%', slug: 'script', templateId: null, active: false },
      { name: 'Tautulli', slug: 'tautulli', templateId: null, active: true },
    ]) {
      const response = await fetch(`${server.url}/api/admin/v1/apps`, {
        method: 'POST',
        headers,
        body: JSON.stringify(app),
      });
      expect(response.status).toBe(201);
    }
    const table = page.getByRole('table', { name: 'Apps' });
    const names = async () => (await table.locator('tbody tr td:first-child').allTextContents()).map((t) => t.trim());
    const rows = (count: number) =>
      table
        .locator('tbody tr')
        .nth(count - 1)
        .waitFor();
    await step('apps-search', async () => {
      await page.goto(`${origin}/apps`);
      await rows(3);
      expect(await names()).toEqual(['Overseerr', 'Script 100%', 'Tautulli']);
      // Searching: a part of the name or slug, "%" taken literally.
      await page.getByLabel('Search apps').fill('100%');
      await page.waitForURL(/[?&]q=100%25/);
      await table.locator('tbody tr').nth(1).waitFor({ state: 'detached' });
      expect(await names()).toEqual(['Script 100%']);
      await page.getByLabel('Search apps').fill('TAUT');
      await page.waitForURL(/[?&]q=TAUT/);
      await table.getByRole('link', { name: 'Tautulli' }).waitFor();
      expect(await names()).toEqual(['Tautulli']);
      // A reload keeps the search.
      await page.reload();
      await table.getByRole('link', { name: 'Tautulli' }).waitFor();
      expect(await page.getByLabel('Search apps').inputValue()).toBe('TAUT');
      expect(await names()).toEqual(['Tautulli']);
    });
    await step('apps-filters', async () => {
      await page.getByLabel('Search apps').fill('');
      await page.waitForURL((url) => !url.searchParams.has('q'));
      await rows(3);
      await page.getByLabel('Filter by template').selectOption({ label: 'No template' });
      await page.waitForURL(/[?&]templateId=none/);
      await table.getByRole('link', { name: 'Overseerr' }).waitFor({ state: 'detached' });
      expect(await names()).toEqual(['Script 100%', 'Tautulli']);
      await page.getByLabel('Filter by state').selectOption({ label: 'Inactive' });
      await page.waitForURL(/[?&]state=inactive/);
      await table.getByRole('link', { name: 'Tautulli' }).waitFor({ state: 'detached' });
      expect(await names()).toEqual(['Script 100%']);
      await page.reload();
      await table.getByRole('link', { name: 'Script 100%' }).waitFor();
      expect(await names()).toEqual(['Script 100%']);
      expect(await page.getByLabel('Filter by template').inputValue()).toBe('none');
      expect(await page.getByLabel('Filter by state').inputValue()).toBe('inactive');
      await page.getByLabel('Filter by template').selectOption({ label: 'overseerr' });
      await page.getByText('No apps match these filters.').waitFor();
      await browser.screenshot(`${PREFIX}-apps-no-match`);
    });
    await step('apps-accessibility', async () => {
      for (const theme of ['light', 'dark'] as const) {
        await useTheme(page, theme);
        await page.getByText('No apps match these filters.').waitFor();
        expect([theme, 'no match', await axeViolations(page)]).toEqual([theme, 'no match', []]);
        await page.getByRole('button', { name: 'Clear search and filters' }).click();
        await rows(3);
        expect(await names()).toEqual(['Overseerr', 'Script 100%', 'Tautulli']);
        expect([theme, 'list', await axeViolations(page)]).toEqual([theme, 'list', []]);
        await browser.screenshot(`${PREFIX}-apps-${theme}`);
        await page.goto(`${origin}/apps?templateId=none&state=inactive&q=nothing`);
      }
      await useTheme(page, 'light');
    });
  });

  it('shows it at a glance on the home page', async () => {
    const { page } = browser;
    await step('home-summary', async () => {
      await nav(page, 'Home').click();
      await page.getByRole('heading', { name: 'Home' }).waitFor();
      await page.getByText('Movies', { exact: false }).first().waitFor();
      await page.getByText('Reachable').first().waitFor();
    });
    await browser.screenshot(`${PREFIX}-home-summary`);
  });

  it('fits a phone', async () => {
    const { page } = browser;
    await page.setViewportSize({ width: 390, height: 844 });
    await page.goto(`${origin}/apps`);
    await page.getByRole('button', { name: 'Menu' }).click();
    await nav(page, 'Warnings').click();
    await page.getByRole('heading', { name: 'Warnings' }).waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    expect(overflow).toBeLessThanOrEqual(0);
    await browser.screenshot(`${PREFIX}-phone-warnings`);
    await page.setViewportSize({ width: 1280, height: 800 });
  });

  it('logged no unexpected console errors', () => {
    const expected = (e: { text: string; url: string }) =>
      /status of 401/.test(e.text) ||
      // The deliberate wrong-key step.
      (/status of 422/.test(e.text) && /\/api\/admin\/v1\/services$/.test(e.url));
    expect(consoleErrors.filter((e) => !expected(e))).toEqual([]);
  });
});
