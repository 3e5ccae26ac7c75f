import type { Page } from 'playwright-core';
import type { AppDto, ProxyDetailsDto } from '@arrbiter/contracts';
import { seedProxy } from '@arrbiter/server/testing';
import { freePort } from '@arrbiter/tools/fake-servarr';
import { axeViolations } from '../support/axe';
import { Browser } from '../support/browser';
import { OidcProvider, startOidcProvider } from '../support/oidc-provider';
import { browserSuite } from '../support/browser-suite';
import { ServerProcess } from '../support/server-process';

const OWNER = { ADMIN_USERNAME: 'olivia', ADMIN_PASSWORD: 'owner passphrase for the browser' };
const VIEWER = { username: 'vera', password: 'viewer passphrase for the browser' };
const PREFIX = 'staff';
const THEMES = ['light', 'dark'] as const;
/** A webhook whose last segment is its secret: masked for everyone, so never on a page. */
const WEBHOOK = 'https://discord.example.test/api/webhooks/123456789/SeCrEtWeBhOoKtOkEn';

/**
 * What a viewer may still press on a page: reading, filtering, paging, copying and comparing; never a
 * write. Buttons of their own account (tokens, sessions, password) live on pages of their own.
 */
const READ_ONLY_BUTTONS = new Set([
  'Refresh',
  'Load more',
  'Retry',
  'Check',
  'Clear search and filters',
  'Copy Proxy URL',
  'Compare with current',
  'Hide comparison',
  'How to connect a client',
  // First calls, live: stops (or starts again) watching the proxy's calls.
  "That's all, looks good",
  'Watch again',
  // Settings → Backup & configuration: the export without secrets is a read; a webhook's deliveries too.
  'Download',
  'Recent deliveries',
]);

/** The pages a viewer reads, and a sign that each is shown with its content. */
function viewerPages(
  app: AppDto,
  proxy: ProxyDetailsDto,
): { name: string; path: string; ready: (page: Page) => Promise<unknown> }[] {
  const proxyPath = `/apps/${app.id}/proxies/${proxy.id}`;
  return [
    { name: 'home', path: '/home', ready: (page) => page.getByText('Reachable').first().waitFor() },
    { name: 'services', path: '/services', ready: (page) => page.getByTestId('service-Movies').waitFor() },
    {
      name: 'apps',
      path: '/apps',
      ready: (page) => page.getByRole('table', { name: 'Apps' }).getByRole('link', { name: 'Homepage' }).waitFor(),
    },
    {
      name: 'app detail',
      path: `/apps/${app.id}`,
      ready: (page) => page.getByRole('heading', { name: 'Proxies' }).waitFor(),
    },
    {
      name: 'proxy connection',
      path: `${proxyPath}/connection`,
      ready: (page) => page.getByTestId('proxy-key-hidden').waitFor(),
    },
    {
      name: 'proxy endpoints',
      path: `${proxyPath}/endpoints`,
      ready: (page) => page.getByLabel('Search API paths').waitFor(),
    },
    {
      name: 'proxy usage',
      path: `${proxyPath}/usage`,
      ready: (page) => page.getByRole('heading', { name: 'Top routes' }).waitFor(),
    },
    {
      name: 'proxy history',
      path: `${proxyPath}/history`,
      ready: (page) => page.getByText('Proxy created', { exact: false }).last().waitFor(),
    },
    {
      name: 'warnings',
      path: `/warnings?proxyId=${proxy.id}`,
      ready: (page) => page.getByText('Not learning.').waitFor(),
    },
    {
      name: 'templates',
      path: '/templates',
      ready: (page) => page.getByRole('link', { name: 'Settings → Template repository' }).waitFor(),
    },
    {
      name: 'settings',
      path: '/settings',
      ready: async (page) => {
        await page.getByText('Owners change the server’s settings.').waitFor();
        await page.getByText('Owners change the repository.').waitFor();
      },
    },
    {
      name: 'recent changes',
      path: '/changes',
      ready: (page) => page.getByRole('table', { name: 'Changes' }).getByText('Proxy created').first().waitFor(),
    },
  ];
}

describe('admin staff in a real browser: accounts, tokens, your account, a viewer, single sign-on', () => {
  let provider: OidcProvider;
  const suite = browserSuite({
    admin: OWNER,
    upstream: { type: 'radarr', instanceName: 'Movies' },
    env: async () => {
      const port = await freePort();
      const origin = `http://127.0.0.1:${port}`;
      provider = await startOidcProvider(`${origin}/api/auth/oidc/callback`, { sam: { groups: ['arr-staff'] } });
      return {
        PORT: String(port),
        PUBLIC_URL: origin,
        ALLOWED_ORIGINS: `http://localhost:${port}`,
        OIDC_ISSUER: provider.issuer,
        OIDC_CLIENT_ID: provider.clientId,
        OIDC_CLIENT_SECRET: provider.clientSecret,
        OIDC_ROLE_MAP: 'arr-owners=owner,arr-staff=editor',
        OIDC_AUTO_CREATE: 'true',
      };
    },
    signIn: false,
  });
  let server: ServerProcess;
  let browser: Browser;
  let origin: string;
  let app: AppDto;
  let proxy: ProxyDetailsDto;

  beforeAll(async () => {
    ({ server, browser, origin } = suite);
    const owner = suite.admin;
    ({ app, proxy } = await seedProxy(owner, {
      upstream: suite.upstream,
      app: { name: 'Homepage', slug: 'homepage' },
    }));
    await owner.request('POST', '/api/admin/v1/admins', { ...VIEWER, role: 'viewer' });
    await owner.request('PUT', '/api/admin/v1/settings/notifications', {
      webhooks: [{ url: WEBHOOK, format: 'discord', events: ['key.rotated'], enabled: false }],
    });
  });
  afterAll(async () => {
    await provider?.stop();
  });

  const page = () => browser.page;

  async function signIn(credentials: { username: string; password: string }): Promise<void> {
    await page().context().clearCookies();
    await page().goto(`${origin}/sign-in`);
    await page().getByLabel('Username').fill(credentials.username);
    await page().getByLabel('Password').fill(credentials.password);
    await page().getByRole('button', { name: 'Sign in', exact: true }).click();
    await page().getByTestId('current-user').waitFor();
  }

  /** axe in both themes on the page as it is: "name [theme] rule: targets" per violation. */
  async function axeBothThemes(name: string): Promise<string[]> {
    const found: string[] = [];
    for (const theme of THEMES) {
      await page().evaluate((value) => {
        localStorage.setItem('arrbiter.theme', value);
        document.documentElement.dataset['theme'] = value;
      }, theme);
      await page().evaluate(() => document.fonts.ready);
      const violations = await axeViolations(page());
      await browser.screenshot(`${PREFIX}-${theme}-${name.replace(/\W+/g, '-')}`).catch(() => undefined);
      found.push(...violations.map((v) => `${name} [${theme}] ${v.id} (${v.help}): ${v.targets.join(', ')}`));
    }
    return found;
  }

  it('lets an owner add an account, change its role, keep the last owner, and delete it', async () => {
    await signIn({ username: OWNER.ADMIN_USERNAME, password: OWNER.ADMIN_PASSWORD });
    await page().getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Accounts' }).click();
    await page().getByRole('table', { name: 'Accounts' }).waitFor();
    await page().getByRole('button', { name: 'Add account' }).click();
    await page().getByLabel('Username').fill('eddie');
    await page().getByLabel('Role', { exact: true }).selectOption('editor');
    await page().getByLabel('Password (optional)').fill('editor passphrase in the browser');
    const found = await axeBothThemes('accounts, new account form');
    await page().getByRole('button', { name: 'Create account' }).click();
    await page().getByText('Account “eddie” created as editor.').waitFor();

    await page().getByLabel('Role of eddie').selectOption('viewer');
    await page().getByText('eddie is now viewer.').waitFor();
    // The only owner cannot step down: the server says so and the picker stays.
    await page().getByLabel('Role of olivia').selectOption('editor');
    await page().getByRole('alert').getByText('last owner').waitFor();
    expect(await page().getByLabel('Role of olivia').inputValue()).toBe('owner');
    found.push(...(await axeBothThemes('accounts, last owner refused')));

    await page().getByRole('button', { name: 'Delete eddie' }).click();
    await page().getByRole('dialog').getByRole('button', { name: 'Delete' }).click();
    await page().getByText('Account “eddie” deleted.').waitFor();
    expect(await page().getByTestId('account-eddie').count()).toBe(0);
    expect(found).toEqual([]);
  });

  it('creates an API token shown once, lists it, and revokes it so that it stops at once', async () => {
    await page().getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'API tokens' }).click();
    await page().getByRole('heading', { name: 'New token' }).waitFor();
    await page().getByLabel('Name').fill('nightly backup');
    await page().getByLabel('Role').selectOption('viewer');
    await page().getByRole('button', { name: 'Create token' }).click();
    const token = (await page().getByTestId('token-value').textContent())?.trim() ?? '';
    expect(token).toMatch(/^arb_[A-Za-z0-9_-]{43}$/);
    await page().getByTestId('token-nightly backup').waitFor();
    const found = await axeBothThemes('tokens, new token shown once');
    const bearer = { authorization: `Bearer ${token}` };
    expect((await fetch(`${server.url}/api/admin/v1/apps`, { headers: bearer })).status).toBe(200);

    // Shown once: a reload lists the token, never its value.
    await page().reload();
    await page().getByTestId('token-nightly backup').waitFor();
    expect(await page().getByTestId('created-token').count()).toBe(0);
    expect(await page().content()).not.toContain(token);

    await page().getByRole('button', { name: 'Revoke nightly backup' }).click();
    found.push(...(await axeBothThemes('tokens, revoke dialog')));
    await page().getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page().getByTestId('token-nightly backup').waitFor({ state: 'detached' });
    expect((await fetch(`${server.url}/api/admin/v1/apps`, { headers: bearer })).status).toBe(401);
    expect(found).toEqual([]);
  });

  it('shows your account: role, sessions (this one marked), and a password change', async () => {
    await signIn(VIEWER);
    await page().getByTestId('current-user').click();
    await page().getByRole('heading', { name: 'Your account' }).waitFor();
    expect(await page().getByTestId('account-role').textContent()).toBe('viewer');
    await page().getByTestId('session-current').getByText('This session').waitFor();
    const found = await axeBothThemes('your account');
    await page().getByLabel('Current password').fill(VIEWER.password);
    await page().getByLabel('New password', { exact: true }).fill('a brand new viewer passphrase');
    await page().getByLabel('New password again').fill('a brand new viewer passphrase');
    await page().getByRole('button', { name: 'Change password' }).click();
    await page().getByText('Password changed.').waitFor();
    found.push(...(await axeBothThemes('your account, password changed')));
    VIEWER.password = 'a brand new viewer passphrase';
    expect(found).toEqual([]);
  });

  it('gives a viewer a read-only dashboard: no write control on any page, no key, no Accounts', async () => {
    await signIn(VIEWER);
    const nav = page().getByRole('navigation', { name: 'Sections' });
    expect(await nav.getByRole('link', { name: 'Accounts' }).count()).toBe(0);
    const writes: string[] = [];
    const found: string[] = [];
    for (const visit of viewerPages(app, proxy)) {
      await page().goto(`${origin}${visit.path}`);
      await visit.ready(page());
      const buttons = await page()
        .locator('main button:visible')
        .evaluateAll((elements) => elements.map((e) => e.getAttribute('aria-label') ?? e.textContent?.trim() ?? ''));
      writes.push(...buttons.filter((name) => !READ_ONLY_BUTTONS.has(name)).map((name) => `${visit.name}: ${name}`));
      // A filter's checkbox (Recent changes → Show sign-ins) only reads: it is not a write.
      const switches = await page()
        .locator('main input[type=checkbox]:enabled')
        .evaluateAll((boxes) => boxes.filter((box) => !box.closest('[role=search]')).length);
      if (switches > 0) writes.push(`${visit.name}: ${switches} editable checkboxes`);
      if (['proxy connection', 'proxy endpoints', 'settings'].includes(visit.name)) {
        found.push(...(await axeBothThemes(`viewer, ${visit.name}`)));
      }
    }
    expect(writes).toEqual([]);
    expect(await page().content()).not.toContain(proxy.key);
    expect(await page().content()).not.toContain('SeCrEtWeBhOoKtOkEn');
    // The server refuses a viewer's write anyway, whatever a page shows.
    const status = await page().evaluate(async () => {
      const response = await fetch('/api/admin/v1/apps', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Sneaky', slug: 'sneaky', templateId: null, active: true }),
      });
      return response.status;
    });
    expect(status).toBe(403);
    // And the owners-only page sends a viewer home.
    await page().goto(`${origin}/accounts`);
    await page().waitForURL(/\/home$/);
    expect(found).toEqual([]);
  });

  it('signs in through the OpenID provider with the sign-in page’s button', async () => {
    await page().context().clearCookies();
    await page().goto(`${origin}/sign-in`);
    const button = page().getByRole('link', { name: /^Sign in with 127\.0\.0\.1:\d+$/ });
    await button.waitFor();
    const found = await axeBothThemes('sign-in with single sign-on');
    await button.click();
    // The provider's own (development) login form.
    await page().locator('input[name=login]').fill('sam');
    await page().locator('input[name=password]').fill('whatever the provider wants');
    await page().locator('button[type=submit]').click();
    await page().waitForURL(`${origin}/home`);
    await page().getByTestId('current-user').waitFor();
    expect(await page().getByTestId('current-user').textContent()).toContain('sam');
    expect(await page().getByTestId('current-role').textContent()).toBe('editor');

    // A refused sign-in comes back to the sign-in page with the reason.
    await page().context().clearCookies();
    await page().goto(`${origin}/sign-in?sso=no-role`);
    await page().getByTestId('sso-error').waitFor();
    found.push(...(await axeBothThemes('sign-in, single sign-on refused')));
    expect(found).toEqual([]);
    // Arrbiter's own pages logged no error (the provider's page may, fetching its web font).
    expect(browser.errors.filter((e) => e.includes(origin) && !e.includes('status of 40'))).toEqual([]);
  });
});
