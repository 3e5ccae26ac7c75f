import { mkdirSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type {
  AllowlistResponse,
  AppDto,
  KnownClientDto,
  ProxyDto,
  RecentCallsResponse,
  ServiceDto,
} from '@arrbiter/contracts';
import { eventually, seedService } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { axeViolations, useTheme } from '../support/axe';
import { Browser, clickOrExplain } from '../support/browser';
import { browserSuite } from '../support/browser-suite';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'connect a client in the browser passphrase' };
const PREFIX = 'connect';
/** Overseerr's calls as the catalogue holds them (the data file itself, not the server's answer). */
const OVERSEERR = resolve(__dirname, '../../../../libs/server/known-clients/data/overseerr.json');
/** `README_SCREENSHOTS=1` rewrites the README's picture of the review step. */
const README_IMAGE = resolve(__dirname, '../../../../docs/images/connect-review.png');
/** The sensitive calls the test ticks: Overseerr's command on Radarr only. */
const TICKED: Record<string, string[]> = { radarr: ['post /api/v3/command'], sonarr: [] };

interface CatalogueCall {
  method: string;
  path: string;
  query?: string;
  pathSamples?: Record<string, string>;
}

/** A catalogue call as a client sends it: a template path (`{file}`) made concrete with its sample, plus its query. */
function request(call: CatalogueCall): string {
  const path = call.path.replace(/\{(\w+)\}/g, (_, name: string) => call.pathSamples?.[name] ?? 'sample');
  return call.query ? `${path}?${call.query}` : path;
}

/** An element's text with its white space collapsed. */
async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The "Connect a client" flow end to end: from Home's empty state, Overseerr on a fake Radarr and a fake
 * Sonarr, `POST /api/v3/command` ticked on Radarr only; then the values the last step shows are used as
 * Overseerr would use them, every catalogue call of Overseerr goes through and shows up in the live list,
 * and the allowlists hold exactly the non-sensitive calls plus the ticked one. Axe-clean in light and
 * dark and no sideways scroll at 390 px on every step.
 */
describe('connect a client in the dashboard: Overseerr on Radarr and Sonarr', () => {
  const suite = browserSuite({
    admin: ADMIN,
    upstream: { type: 'radarr', instanceName: 'Movies' },
    prefix: PREFIX,
    screenshotEachTest: true,
  });
  let browser: Browser;
  let admin: AdminHttpClient;
  let origin: string;
  let sonarr: FakeServarr;
  let radarrService: ServiceDto;
  let sonarrService: ServiceDto;
  let known: KnownClientDto;
  let app: AppDto;
  const catalogue = JSON.parse(readFileSync(OVERSEERR, 'utf8')) as { services: Record<string, CatalogueCall[]> };

  /** Axe in both themes (back to light after), and the page fits 390 px without sideways scroll. */
  const check = async (page: Page, ready: () => Promise<unknown>, name: string) => {
    for (const theme of ['dark', 'light'] as const) {
      await useTheme(page, theme);
      await ready();
      expect({ name, theme, violations: await axeViolations(page) }).toEqual({ name, theme, violations: [] });
    }
    await page.setViewportSize({ width: 390, height: 844 });
    await ready();
    const overflow = await page.evaluate(() => {
      const width = document.documentElement.scrollWidth - window.innerWidth;
      // The elements that stick out, named for the failure message.
      const sticksOut = (e: Element) => e.getBoundingClientRect().right > window.innerWidth + 0.5;
      const wide = [...document.querySelectorAll('body *')]
        .filter((e) => sticksOut(e) && ![...e.children].some(sticksOut))
        .slice(0, 5)
        .map((e) => `${e.tagName.toLowerCase()}.${[...e.classList].join('.')} "${(e.textContent ?? '').slice(0, 40)}"`);
      return width > 0 ? { width, wide } : 0;
    });
    expect({ name, overflow }).toEqual({ name, overflow: 0 });
    await page.setViewportSize({ width: 1280, height: 800 });
    await ready();
  };

  beforeAll(async () => {
    ({ browser, admin, origin } = suite);
    sonarr = await FakeServarr.start({ type: 'sonarr', instanceName: 'Shows' });
    radarrService = await seedService(admin, suite.upstream);
    sonarrService = await seedService(admin, sonarr);
    known = await admin.request<KnownClientDto>('GET', '/api/admin/v1/known-clients/overseerr');
  });

  afterAll(async () => {
    await sonarr?.stop();
  });

  it('opens from Home: the catalogue, searchable, with Other / not listed', async () => {
    const { page } = browser;
    await suite.step('home-empty', async () => {
      await page.goto(`${origin}/home`);
      const empty = page.getByTestId('home-empty');
      await empty.getByRole('link', { name: 'Connect a client' }).click();
      await page.getByRole('heading', { name: 'Which client?' }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/connect');
    });
    await suite.step('client-step', async () => {
      const list = page.getByRole('list', { name: 'Clients' });
      await list.getByTestId('client-overseerr').waitFor();
      expect(await text(list.getByTestId('client-overseerr'))).toBe(
        `OVOverseerr, calls read from ${known.source.ref}, talks to Radarr Sonarr`,
      );
      await check(page, () => page.getByTestId('client-overseerr').waitFor(), 'client');
      await page.getByLabel('Search the catalogue').fill('overs');
      await eventually('the search narrows the list', async () => (await list.getByRole('listitem').count()) === 2);
      expect(await list.getByTestId('client-other').getAttribute('href')).toBe('/apps?create=1');
    });
  });

  it('picks both services and reviews: sensitive calls unticked, each saying what breaks without it', async () => {
    const { page } = browser;
    await suite.step('services-step', async () => {
      await page.getByTestId('client-overseerr').click();
      await page.getByRole('heading', { name: 'Which services will Overseerr use?' }).waitFor();
      expect(new URL(page.url()).searchParams.get('step')).toBe('services');
      const movies = page.getByRole('checkbox', { name: /^Movies Radarr/ });
      const shows = page.getByRole('checkbox', { name: /^Shows Sonarr/ });
      // Two services fit: neither is picked for the user.
      expect(await movies.isChecked()).toBe(false);
      await check(page, () => movies.waitFor(), 'services');
      await page.getByRole('checkbox', { name: /^Movies Radarr/ }).check();
      await shows.check();
      await page.getByRole('button', { name: 'Review what it may call' }).click();
      await page.getByRole('heading', { name: 'What Overseerr may call' }).waitFor();
      const services = new URL(page.url()).searchParams.get('services')?.split(',').sort();
      expect(services).toEqual([radarrService.id, sonarrService.id].sort());
    });
    await suite.step('review-step', async () => {
      for (const type of ['radarr', 'sonarr']) {
        const section = page.getByTestId(`review-${type}`);
        const command = section.getByTestId(`call-${type}-post-/api/v3/command`);
        expect(await command.getByRole('checkbox').isChecked()).toBe(false);
        expect(await text(command.getByTestId(`without-${type}-post-/api/v3/command`))).toMatch(
          /^Without it, Overseerr's ServarrBase\.runCommand gets 403: (Movies|Series)Search .+\.$/,
        );
        // Every sensitive call of the client starts unticked; the others are included, with no checkbox.
        for (const call of known.services[type]) {
          const row = section.getByTestId(`call-${type}-${call.method}-${call.route ?? call.path}`);
          expect(await row.getByRole('checkbox').count()).toBe(call.risk.sensitive ? 1 : 0);
        }
      }
      await check(page, () => page.getByTestId('review-sonarr').waitFor(), 'review');
      if (process.env['README_SCREENSHOTS']) {
        // The step as a newcomer first sees it: Radarr's calls, its command unticked with what breaks without it.
        mkdirSync(resolve(README_IMAGE, '..'), { recursive: true });
        await page.setViewportSize({ width: 1100, height: 1560 });
        await page.evaluate(() => window.scrollTo(0, 0));
        await page.screenshot({ path: README_IMAGE });
        await page.setViewportSize({ width: 1280, height: 800 });
      }
      await page.getByRole('checkbox', { name: 'Grant POST /api/v3/command on Movies' }).check();
      await page.getByTestId('without-radarr-post-/api/v3/command').waitFor({ state: 'detached' });
    });
  });

  it('creates the app and shows what to type into Overseerr; the calls made with those values go through but the unticked sensitive one, live', async () => {
    const { page } = browser;
    await suite.step('create', async () => {
      await page.getByRole('button', { name: 'Create the app and its proxies' }).click();
      await page.getByRole('heading', { name: 'Now enter these in Overseerr' }).waitFor();
      const appId = new URL(page.url()).searchParams.get('app');
      app = await admin.request<AppDto>('GET', `/api/admin/v1/apps/${appId}`);
      expect(app).toMatchObject({ slug: 'overseerr', knownClientId: 'overseerr' });
    });
    await check(page, () => page.getByTestId('done-sonarr').waitFor(), 'done');

    for (const type of ['radarr', 'sonarr']) {
      const section = page.getByTestId(`done-${type}`);
      // As a user reads the screen: each field's shown value, the key after revealing it.
      await clickOrExplain(section.getByRole('button', { name: 'Reveal API Key' }));
      // The click only schedules the render: read the key once the field shows it, as a person would.
      await section.locator('code[data-field="API Key"][data-value]').waitFor();
      const field = async (label: string) => text(section.locator(`code[data-field="${label}"]`));
      const host = await field('Hostname or IP Address');
      const port = await field('Port');
      const ssl = await field('Use SSL');
      const urlBase = await field('URL Base');
      const key = await field('API Key');
      expect(urlBase).toBe('/proxy/overseerr');
      expect(key).toMatch(/^[A-Za-z0-9_-]{20,}$/);
      const base = `${/^(yes|on|true)$/i.test(ssl) ? 'https' : 'http'}://${host}:${port}${urlBase}`;

      const calls = catalogue.services[type];
      // Every call forwards but a sensitive one left unticked (Sonarr's command), which gets 403.
      const refused = (call: CatalogueCall) =>
        !TICKED[type].includes(`${call.method} ${call.path}`) &&
        known.services[type].some(
          (k) =>
            k.method === call.method &&
            k.path === call.path &&
            (k.query ?? '') === (call.query ?? '') &&
            k.risk.sensitive,
        );
      for (const call of calls) {
        const response = await fetch(`${base}${request(call)}`, {
          method: call.method.toUpperCase(),
          headers: { 'x-api-key': key, 'content-type': 'application/json' },
          body: call.method === 'get' ? undefined : '{}',
        });
        await response.arrayBuffer();
        expect({ call: `${call.method} ${request(call)}`, status: response.status }).toEqual({
          call: `${call.method} ${request(call)}`,
          status: refused(call) ? 403 : 200,
        });
      }

      // They show up in the live list of that proxy: allowed, but for the unticked sensitive ones.
      const live = section.locator('arb-recent-calls');
      const allowed = calls.filter((c) => !refused(c)).length;
      const refusals = calls.length - allowed;
      await eventually(`${type}: the ${calls.length} calls show up live`, async () => {
        const shown = await live.locator('li[data-outcome]').count();
        return shown >= calls.length;
      });
      expect({
        type,
        allowed: await live.locator('li[data-outcome="allowed"]').count(),
        refused: await live.locator('li[data-outcome="refused"]').count(),
        other: await live.locator('li:not([data-outcome="allowed"]):not([data-outcome="refused"])').count(),
      }).toEqual({ type, allowed, refused: refusals, other: 0 });
      expect(await text(live.getByTestId('recent-calls-live'))).toBe(`${calls.length} calls so far.`);
    }
    await check(page, () => page.getByTestId('done-sonarr').waitFor(), 'done with calls');
  });

  it("grants each proxy exactly Overseerr's non-sensitive calls plus the ticked one, no other sensitive route", async () => {
    const proxies = await admin.request<ProxyDto[]>('GET', `/api/admin/v1/apps/${app.id}/proxies`);
    expect(proxies).toHaveLength(2);
    for (const proxy of proxies) {
      const type = proxy.serviceId === radarrService.id ? 'radarr' : 'sonarr';
      const { effective } = await admin.request<AllowlistResponse>(
        'GET',
        `/api/admin/v1/proxies/${proxy.id}/allowlist`,
      );
      const granted = Object.entries(effective)
        .flatMap(([path, methods]) => methods.map((m) => `${m} ${path}`))
        .sort();
      const calls = known.services[type];
      const ticked = TICKED[type];
      const expected = [
        ...new Set([
          ...calls.filter((c) => !c.risk.sensitive).map((c) => `${c.method} ${c.route ?? c.path}`),
          ...ticked,
        ]),
      ].sort();
      expect({ type, granted }).toEqual({ type, granted: expected });
      const sensitive = calls.filter((c) => c.risk.sensitive).map((c) => `${c.method} ${c.route ?? c.path}`);
      expect({ type, sensitiveGranted: granted.filter((g) => sensitive.includes(g)) }).toEqual({
        type,
        sensitiveGranted: ticked,
      });
      // What the admin API says the proxy saw: refused only on the sensitive calls left unticked.
      const recent = await admin.request<RecentCallsResponse>('GET', `/api/admin/v1/proxies/${proxy.id}/recent-calls`);
      expect(recent.items.length).toBe(catalogue.services[type].length);
      const notAllowed = recent.items.filter((i) => i.outcome !== 'allowed').map((i) => `${i.method} ${i.route}`);
      expect({ type, notAllowed }).toEqual({ type, notAllowed: sensitive.filter((r) => !ticked.includes(r)) });
    }
  });

  it("ends with That's all, looks good on the app's page; the Connection tab shows the instructions", async () => {
    const { page } = browser;
    await suite.step('finish', async () => {
      await page.getByTestId('done-radarr').getByRole('button', { name: "That's all, looks good" }).click();
      await page.waitForURL(`${origin}/apps/${app.id}`);
    });
    await suite.step('connection-tab', async () => {
      const proxies = await admin.request<ProxyDto[]>('GET', `/api/admin/v1/apps/${app.id}/proxies`);
      await page.goto(`${origin}/apps/${app.id}/proxies/${proxies[0].id}/connection`);
      await page.getByRole('heading', { name: 'Set up Overseerr' }).waitFor();
      await page.locator('code[data-field="URL Base"]').waitFor();
      expect(await text(page.locator('code[data-field="URL Base"]'))).toBe('/proxy/overseerr');
      await check(page, () => page.getByRole('heading', { name: 'First calls, live' }).waitFor(), 'connection tab');
    });
  });

  it('logged no console errors', () => {
    expect(browser.errors).toEqual([]);
  });
});
