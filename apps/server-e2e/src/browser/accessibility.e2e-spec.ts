import { resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { AppDto, ProxyConnectionDto } from '@arrbiter/contracts';
import { seedProxy, seedService } from '@arrbiter/server/testing';
import { axeViolations } from '../support/axe';
import type { Browser } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { ServerProcess } from '../support/server-process';
import { syncTemplates } from '../support/templates';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'accessibility passphrase' };
const PREFIX = 'a11y';
/** The project's copy of the community template repository, synced as a local directory. */
const TEMPLATE_REPO = resolve(__dirname, '../../../../libs/server/template-sync/src/testing/template-repo');
const THEMES = ['light', 'dark'] as const;
/** A phone's viewport: no page may scroll sideways at this width. */
const PHONE = { width: 390, height: 844 };
const DESKTOP = { width: 1280, height: 800 };
/**
 * An app name of `length` characters: one long word (no place to break it) and then words, so long
 * names are exercised wherever the name shows (Warnings, Apps, app detail, the proxy's tabs, Recent changes).
 */
function longName(length: number): string {
  const word = 'Averylongappnamewithoutanyspace'.repeat(8).slice(0, Math.round(length * 0.6));
  const words = ' and then a spaced part that goes on'.repeat(10);
  return (word + words).slice(0, length).trimEnd().padEnd(length, 'x');
}
type Theme = (typeof THEMES)[number];

/** One state of one page: where it is, how to know it is shown with its content, and what to open. */
interface Visit {
  name: string;
  path: () => string;
  ready: (page: Page) => Promise<unknown>;
  open?: (page: Page) => Promise<unknown>;
}

describe('every dashboard page meets WCAG 2.1 AA (axe-core) and fits a 390 px phone, light and dark', () => {
  const suite = browserSuite({
    admin: ADMIN,
    env: { TEMPLATE_ROOT: TEMPLATE_REPO },
    upstream: { type: 'radarr', instanceName: 'Movies' },
    signIn: false,
  });
  let server: ServerProcess;
  let browser: Browser;
  let origin: string;
  let app: AppDto;
  let proxy: ProxyConnectionDto;
  let longApp: AppDto;
  let longProxy: ProxyConnectionDto;

  beforeAll(async () => {
    ({ server, browser, origin } = suite);
    const { admin, upstream } = suite;
    // Realistic content: synced templates, a service, an app from a template with a proxy,
    // a saved configuration (two revisions), and warnings from refused calls.
    const templates = await syncTemplates(admin, TEMPLATE_REPO);
    const template = templates.find((t) => t.name === 'overseerr');
    if (!template) throw new Error('the overseerr template did not sync');
    const service = await seedService(admin, upstream);
    app = await admin.request<AppDto>('POST', '/api/admin/v1/apps', {
      name: 'Overseerr',
      slug: 'overseerr',
      templateId: template.id,
      active: true,
    });
    await admin.request('POST', '/api/admin/v1/apps', {
      name: 'Tautulli',
      slug: 'tautulli',
      templateId: null,
      active: false,
    });
    ({ proxy } = await seedProxy(admin, {
      service,
      app,
      config: { overrides: { '/api/v3/movie/{id}': ['delete'] }, active: true },
    }));
    // The longest name the server takes: 200 characters (100 until the apps' limit is raised).
    const createLong = (length: number) =>
      admin.request<AppDto>('POST', '/api/admin/v1/apps', {
        name: longName(length),
        slug: 'long-name',
        templateId: null,
        active: true,
      });
    longApp = await createLong(200).catch(() => createLong(100));
    ({ proxy: longProxy } = await seedProxy(admin, { service, app: longApp }));
    const refusals = [
      { slug: 'overseerr', key: proxy.key, path: '/api/v3/calendar' },
      { slug: 'overseerr', key: proxy.key, path: '/api/v3/system/backup' },
      { slug: 'long-name', key: longProxy.key, path: '/api/v3/calendar' },
    ];
    for (const { slug, key, path } of refusals) {
      const response = await fetch(`${server.url}/proxy/${slug}${path}`, { headers: { 'x-api-key': key } });
      await response.arrayBuffer();
      expect(response.status).toBe(403);
    }
  });

  const heading = (page: Page, name: string) => page.getByRole('heading', { name }).first().waitFor();
  const proxyPath = (tab: string) => `/apps/${app.id}/proxies/${proxy.id}/${tab}`;
  const longProxyPath = (tab: string) => `/apps/${longApp.id}/proxies/${longProxy.id}/${tab}`;

  const VISITS: Visit[] = [
    { name: 'home', path: () => '/home', ready: (page) => page.getByText('Reachable').first().waitFor() },
    {
      name: 'services',
      path: () => '/services',
      ready: (page) => page.getByTestId('service-Movies').getByText('Reachable').waitFor(),
    },
    {
      name: 'services, add form open',
      path: () => '/services',
      ready: (page) => page.getByTestId('service-Movies').waitFor(),
      open: async (page) => {
        await page.getByRole('button', { name: 'Add service' }).click();
        await page.getByLabel('Base URL').waitFor();
      },
    },
    {
      name: 'apps',
      path: () => '/apps',
      ready: (page) => page.getByRole('table', { name: 'Apps' }).getByRole('link', { name: 'Tautulli' }).waitFor(),
    },
    {
      name: 'apps, new app form open',
      path: () => '/apps',
      ready: (page) => page.getByRole('table', { name: 'Apps' }).waitFor(),
      open: async (page) => {
        await page.getByRole('button', { name: 'New app' }).click();
        await page.getByLabel('Slug').waitFor();
      },
    },
    {
      name: "apps, new app form with a template's fit open",
      path: () => '/apps',
      ready: (page) => page.getByRole('table', { name: 'Apps' }).waitFor(),
      open: async (page) => {
        await page.getByRole('button', { name: 'New app' }).click();
        await page.getByLabel('Template', { exact: true }).selectOption({ label: 'maintainerr' });
        const radarr = page.getByTestId('template-fit').getByTestId('fit-radarr');
        await radarr.locator('summary').click();
        await radarr.getByText('Refused, though Maintainerr calls them:').waitFor();
      },
    },
    {
      name: 'connect a client',
      path: () => '/connect',
      ready: (page) => page.getByTestId('client-other').waitFor(),
    },
    {
      name: 'app detail',
      path: () => `/apps/${app.id}`,
      ready: (page) => page.getByText('Template: overseerr').waitFor(),
    },
    {
      name: 'app detail, save as template open',
      path: () => `/apps/${app.id}`,
      ready: (page) => page.getByText('Template: overseerr').waitFor(),
      open: async (page) => {
        await page.getByRole('button', { name: 'Save as template' }).click();
        await page.getByLabel('New template’s name').waitFor();
      },
    },
    {
      name: 'app detail, long name',
      path: () => `/apps/${longApp.id}`,
      ready: (page) => page.getByRole('heading', { name: longApp.name }).first().waitFor(),
    },
    {
      name: 'proxy connection, long name',
      path: () => longProxyPath('connection'),
      ready: (page) => heading(page, 'Connection details'),
    },
    {
      name: 'proxy endpoints, long name',
      path: () => longProxyPath('endpoints'),
      ready: (page) => page.getByLabel('Search API paths').waitFor(),
    },
    {
      name: 'proxy usage, long name',
      path: () => longProxyPath('usage'),
      ready: (page) => page.getByTestId('route-get-/api/v3/calendar').waitFor(),
    },
    {
      name: 'proxy history, long name',
      path: () => longProxyPath('history'),
      ready: (page) => page.getByText('Proxy created', { exact: false }).last().waitFor(),
    },
    {
      name: 'proxy connection, how-to open',
      path: () => proxyPath('connection'),
      ready: (page) => heading(page, 'Connection details'),
      open: async (page) => {
        await page.getByText('How to connect a client').click();
        await page.getByText('/proxy/overseerr', { exact: true }).waitFor();
      },
    },
    {
      name: 'proxy endpoints',
      path: () => proxyPath('endpoints'),
      ready: (page) => page.getByLabel('Search API paths').waitFor(),
    },
    {
      name: 'proxy endpoints, draft reviewed',
      path: () => proxyPath('endpoints'),
      ready: (page) => page.getByLabel('Search API paths').waitFor(),
      open: async (page) => {
        await page.getByLabel('Search API paths').fill('/api/v3/calendar');
        await page.getByLabel('GET /api/v3/calendar', { exact: true }).check();
        await page.getByTestId('draft-added').filter({ hasText: '+1 added' }).waitFor();
        await page.getByRole('button', { name: 'Review changes' }).click();
        await page.getByText('/api/v3/calendar', { exact: true }).last().waitFor();
      },
    },
    {
      name: 'proxy fit',
      path: () => proxyPath('fit'),
      ready: (page) => page.getByTestId('fit-summary').filter({ hasText: 'Overseerr makes' }).waitFor(),
    },
    {
      name: 'proxy fit, another client with refused calls',
      path: () => proxyPath('fit'),
      ready: (page) => page.getByTestId('fit-summary').filter({ hasText: 'Overseerr makes' }).waitFor(),
      open: async (page) => {
        await page.getByLabel('Known client', { exact: true }).selectOption({ label: 'Maintainerr' });
        await page.getByRole('table', { name: 'Refused calls' }).waitFor();
      },
    },
    {
      name: 'proxy usage, the hourly table open',
      path: () => proxyPath('usage'),
      ready: (page) => page.getByTestId('route-get-/api/v3/calendar').waitFor(),
      open: async (page) => {
        await page.getByText('Calls per hour as a table').click();
        await page.getByRole('table', { name: 'Calls per hour, hours with calls only' }).waitFor();
      },
    },
    {
      name: 'proxy history, comparison open',
      path: () => proxyPath('history'),
      ready: (page) => page.getByText('Proxy created', { exact: false }).last().waitFor(),
      open: async (page) => {
        await page.getByRole('button', { name: 'Compare with current' }).last().click();
        await page.getByText('Restoring it would change:').waitFor();
      },
    },
    {
      name: 'proxy history, restore dialog',
      path: () => proxyPath('history'),
      ready: (page) => page.getByText('Proxy created', { exact: false }).last().waitFor(),
      open: async (page) => {
        await page.getByRole('button', { name: 'Restore', exact: true }).last().click();
        await heading(page, 'Restore this revision?');
      },
    },
    {
      name: 'templates, with their fit',
      path: () => '/templates',
      ready: (page) =>
        page
          .getByRole('article', { name: 'maintainerr' })
          .getByRole('region', { name: 'Fit of maintainerr for Maintainerr' })
          .getByTestId('fit-radarr')
          .waitFor(),
      open: (page) =>
        page.getByRole('article', { name: 'maintainerr' }).getByTestId('fit-radarr').locator('summary').click(),
    },
    {
      name: 'templates, sync preview and confirmation',
      path: () => '/templates',
      ready: (page) => page.getByRole('article', { name: 'overseerr' }).waitFor(),
      open: async (page) => {
        await page.getByRole('button', { name: 'Preview sync' }).click();
        await page.getByRole('region', { name: 'Sync report' }).waitFor();
        await page.getByRole('button', { name: 'Sync now' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Sync now' }).waitFor();
      },
    },
    {
      name: 'settings, with a rate limit being set',
      path: () => '/settings',
      ready: (page) => page.getByRole('button', { name: 'Save defaults' }).waitFor(),
      open: async (page) => {
        await page.getByLabel('Limit how often the client may call').check();
        await page.getByLabel('Calls per minute').waitFor();
      },
    },
    {
      name: 'warnings',
      path: () => '/warnings',
      // Two apps' proxies were refused GET /api/v3/calendar: Overseerr's and the long-named app's.
      ready: (page) => page.getByTestId('warning-get-/api/v3/calendar').first().waitFor(),
    },
    {
      name: 'warnings of a proxy (learning control)',
      path: () => `/warnings?proxyId=${proxy.id}`,
      ready: (page) => page.getByRole('button', { name: 'Start learning' }).waitFor(),
    },
    {
      name: 'recent changes',
      path: () => '/changes',
      ready: (page) => page.getByRole('table', { name: 'Changes' }).getByText('Proxy created').first().waitFor(),
    },
    {
      // The dashboard has no not-found page: an unknown path lands on home.
      name: 'unknown path',
      path: () => '/no/such/page',
      ready: async (page) => {
        await page.waitForURL(/\/home$/);
        await page.getByText('Reachable').first().waitFor();
      },
    },
  ];

  /** "page [theme] rule: selector, selector" for each violation: the failure names all there is to fix. */
  async function check(page: Page, name: string, theme: Theme): Promise<string[]> {
    await page.evaluate(() => document.fonts.ready);
    const violations = await axeViolations(page);
    await browser.screenshot(`${PREFIX}-${theme}-${name.replace(/\W+/g, '-')}`).catch(() => undefined);
    return violations.map((v) => `${name} [${theme}] ${v.id} (${v.help}): ${v.targets.join(', ')}`);
  }

  /**
   * "page [theme] scrolls sideways at 390 px by N px (…)" when the page (or the shell's main area) is
   * wider than a phone's viewport, naming the elements that stick out, and "… cuts off tabs" when a tab bar
   * hides a tab past the edge; the viewport is the desktop's again after.
   */
  async function sideways(page: Page, name: string, theme: Theme): Promise<string[]> {
    await page.setViewportSize(PHONE);
    try {
      await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
      const found = await page.evaluate(() => {
        const width = window.innerWidth;
        const main = document.querySelector('main');
        const overflow = {
          page: document.documentElement.scrollWidth - width,
          main: main ? main.scrollWidth - main.clientWidth : 0,
        };
        const culprits: string[] = [];
        if (overflow.page > 0 || overflow.main > 0) {
          // The innermost elements past the right edge that no scroll container of their own holds.
          const scrolls = (el: Element) => getComputedStyle(el).overflowX !== 'visible';
          const contained = (el: Element) => {
            for (let up = el.parentElement; up && up !== document.body; up = up.parentElement)
              if (scrolls(up)) return true;
            return false;
          };
          const past = (el: Element) => el.getBoundingClientRect().right > width + 0.5;
          for (const el of Array.from(document.querySelectorAll('body *'))) {
            if (!past(el) || contained(el) || Array.from(el.children).some(past)) continue;
            const classes = Array.from(el.classList)
              .map((c) => `.${c}`)
              .join('');
            const text = (el.textContent ?? '').trim().slice(0, 40);
            const right = Math.round(el.getBoundingClientRect().right - width);
            culprits.push(`${el.tagName.toLowerCase()}${classes} "${text}" +${right}px`);
            if (culprits.length === 4) break;
          }
        }
        // A tab bar that scrolls itself still hides its last tabs on a phone: every tab must be in view.
        const cutTabs = Array.from(document.querySelectorAll('.tabs a'))
          .filter((tab) => tab.getBoundingClientRect().right > width + 0.5)
          .map((tab) => (tab.textContent ?? '').trim());
        return { ...overflow, culprits, cutTabs };
      });
      const cut =
        found.cutTabs.length > 0 ? [`${name} [${theme}] cuts off tabs at 390 px: ${found.cutTabs.join(', ')}`] : [];
      if (found.page <= 0 && found.main <= 0) return cut;
      await browser.screenshot(`${PREFIX}-${theme}-390-${name.replace(/\W+/g, '-')}`).catch(() => undefined);
      return [
        ...cut,
        `${name} [${theme}] scrolls sideways at 390 px by ${found.page} px (main: ${found.main} px): ` +
          found.culprits.join('; '),
      ];
    } finally {
      await page.setViewportSize(DESKTOP);
    }
  }

  async function setTheme(page: Page, theme: Theme): Promise<void> {
    await page.evaluate((value) => localStorage.setItem('arrbiter.theme', value), theme);
  }

  it.each(THEMES)('the sign-in page, empty and with an error (%s)', async (theme) => {
    const { page } = browser;
    await page.context().clearCookies();
    await page.goto(`${origin}/sign-in`);
    await setTheme(page, theme);
    await page.reload();
    await page.getByLabel('Username').waitFor();
    expect(await page.evaluate(() => document.documentElement.dataset['theme'])).toBe(theme);
    const found = await check(page, 'sign-in', theme);
    await page.getByLabel('Username').fill(ADMIN.ADMIN_USERNAME);
    await page.getByLabel('Password').fill('not the password');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').getByText('Wrong username or password').waitFor();
    await page.getByRole('button', { name: 'Sign in' }).waitFor();
    found.push(...(await check(page, 'sign-in, wrong password', theme)));
    found.push(...(await sideways(page, 'sign-in, wrong password', theme)));
    expect(found).toEqual([]);
  });

  // Every page and open state, at desktop width and at 390 px: minutes on a loaded CI machine (300 s).
  it.each(THEMES)(
    'every signed-in page and its open states (%s)',
    async (theme) => {
      const { page } = browser;
      await page.context().clearCookies();
      await page.goto(`${origin}/sign-in`);
      await setTheme(page, theme);
      await page.getByLabel('Username').fill(ADMIN.ADMIN_USERNAME);
      await page.getByLabel('Password').fill(ADMIN.ADMIN_PASSWORD);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await page.getByTestId('current-user').waitFor();
      const found: string[] = [];
      for (const visit of VISITS) {
        await page.goto(`${origin}${visit.path()}`);
        await visit.ready(page);
        expect([visit.name, await page.evaluate(() => document.documentElement.dataset['theme'])]).toEqual([
          visit.name,
          theme,
        ]);
        await visit.open?.(page);
        found.push(...(await check(page, visit.name, theme)));
        found.push(...(await sideways(page, visit.name, theme)));
      }
      expect(found).toEqual([]);
    },
    300_000,
  );
});
