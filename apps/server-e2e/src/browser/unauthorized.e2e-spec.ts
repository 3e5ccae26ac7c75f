import type { AppDto } from '@arrbiter/contracts';
import { seedProxy } from '@arrbiter/server/testing';
import { AdminHttpClient } from '../support/admin-client';
import { axeViolations, useTheme } from '../support/axe';
import { Browser } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { ServerProcess } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'wrong keys in the browser passphrase' };
const PREFIX = 'unauthorized';
const WRONG_KEY = 'notTheKey-0123456789abcdefghijkl';
/** A User-Agent of one long word: the line wraps it rather than widening the page. */
const LONG_AGENT = `Probe/${'x'.repeat(190)}`;
const PHONE = { width: 390, height: 844 };

describe('calls with a wrong or missing key on Home and on the app’s page', () => {
  const suite = browserSuite({
    admin: ADMIN,
    upstream: { type: 'radarr', instanceName: 'Movies' },
    prefix: PREFIX,
    screenshotEachTest: true,
    env: { TRUST_PROXY: 'loopback' },
  });
  let server: ServerProcess;
  let browser: Browser;
  let admin: AdminHttpClient;
  let origin: string;
  let app: AppDto;

  const call = async (slug: string, headers: Record<string, string>) => {
    const response = await fetch(`${server.url}/proxy/${slug}/api/v3/movie`, { headers });
    await response.arrayBuffer();
    return response.status;
  };

  beforeAll(async () => {
    ({ server, browser, admin, origin } = suite);
    ({ app } = await seedProxy(admin, {
      upstream: suite.upstream,
      app: { name: 'Overseerr', slug: 'overseerr' },
      config: { overrides: { '/api/v3/movie': ['get'] }, active: true },
    }));
  });

  it('shows an empty card before any 401', async () => {
    const { page } = browser;
    await page.goto(`${origin}/home`);
    const card = page.getByRole('region', { name: 'Calls with a wrong or missing key' });
    await card.getByText('None in the last 24 h').waitFor();
  });

  it('shows a burst of 401s per app and for an unknown app, with the last address and User-Agent', async () => {
    for (let i = 0; i < 11; i += 1)
      expect(
        await call('overseerr', {
          'x-api-key': WRONG_KEY,
          'user-agent': 'Overseerr/1.32',
          'x-forwarded-for': '10.0.0.4',
        }),
      ).toBe(401);
    expect(await call('overseerr', { 'user-agent': 'Overseerr/1.33', 'x-forwarded-for': '10.0.0.5' })).toBe(401);
    expect(
      await call('nobody', { 'x-api-key': WRONG_KEY, 'user-agent': LONG_AGENT, 'x-forwarded-for': '10.0.0.9' }),
    ).toBe(401);

    const { page } = browser;
    await page.goto(`${origin}/home`);
    const card = page.getByRole('region', { name: 'Calls with a wrong or missing key' });
    const lines = card.getByRole('listitem');
    await lines.first().waitFor();
    const texts = (await lines.allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim());
    expect(texts).toEqual([
      expect.stringMatching(
        /^Overseerr: 12 calls with a wrong or missing key in the last 24 h, last .+ from 10\.0\.0\.5, User-Agent Overseerr\/1\.33$/,
      ),
      expect.stringMatching(
        /^Unknown app: 1 call with a wrong or missing key in the last 24 h, last .+ from 10\.0\.0\.9, User-Agent Probe\//,
      ),
    ]);
    expect(await page.content()).not.toContain(WRONG_KEY.slice(0, 12));
    await card.getByRole('link', { name: 'Overseerr' }).click();
    await page.waitForURL(`${origin}/apps/${app.id}`);
    const own = page.getByRole('region', { name: 'Calls with a wrong or missing key' });
    await own.getByText(/^12 calls with a wrong or missing key in the last 24 h/).waitFor();
    expect(await own.getByText('Unknown app').count()).toBe(0);
  });

  it.each(['light', 'dark'] as const)('meets WCAG 2.1 AA and fits a 390 px phone (%s)', async (theme) => {
    const { page } = browser;
    const found: string[] = [];
    for (const [name, path] of [
      ['home', '/home'],
      ['app', `/apps/${app.id}`],
    ]) {
      await page.goto(`${origin}${path}`);
      await useTheme(page, theme);
      await page
        .getByRole('region', { name: 'Calls with a wrong or missing key' })
        .getByRole('listitem')
        .first()
        .waitFor();
      found.push(...(await axeViolations(page)).map((v) => `${name} [${theme}] ${v.id}: ${v.targets.join(', ')}`));
      await page.setViewportSize(PHONE);
      try {
        await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))));
        const sideways = await page.evaluate(() => {
          const main = document.querySelector('main');
          return Math.max(
            document.documentElement.scrollWidth - window.innerWidth,
            main ? main.scrollWidth - main.clientWidth : 0,
          );
        });
        if (sideways > 0) found.push(`${name} [${theme}] scrolls sideways at 390 px by ${sideways} px`);
        await browser.screenshot(`${PREFIX}-${name}-${theme}-390`);
      } finally {
        await page.setViewportSize({ width: 1280, height: 800 });
      }
    }
    expect(found).toEqual([]);
  });

  it('logged no console error', () => {
    expect(browser.errors).toEqual([]);
  });
});
