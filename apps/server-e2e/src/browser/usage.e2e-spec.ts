import type { Locator, Page } from 'playwright-core';
import type { AppDto, Page as ListPage, ProxyConnectionDto, RevisionDto, WarningDto } from '@arrbiter/contracts';
import { eventually, seedProxy } from '@arrbiter/server/testing';
import { AdminHttpClient } from '../support/admin-client';
import { axeViolations, useTheme } from '../support/axe';
import { Browser } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { ServerProcess } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'usage in the browser passphrase' };
const PREFIX = 'usage';

/** Pixels of the canvas that the chart painted (not transparent). */
function paintedPixels(canvas: Locator): Promise<number> {
  return canvas.evaluate((element) => {
    const c = element as HTMLCanvasElement;
    const data = c.getContext('2d')?.getImageData(0, 0, c.width, c.height).data ?? new Uint8ClampedArray();
    let painted = 0;
    for (let i = 3; i < data.length; i += 4) if (data[i] > 0) painted += 1;
    return painted;
  });
}

/** A table's body as text: a row per line, its cells' text joined by " | ". */
async function bodyRows(table: Locator): Promise<string[]> {
  const rows: string[] = [];
  for (const tr of await table.locator('tbody tr').all())
    rows.push((await tr.locator('th, td').allTextContents()).map((t) => t.replace(/\s+/g, ' ').trim()).join(' | '));
  return rows;
}

describe('usage in the dashboard: the traffic chart, top routes with grant and deny, unused grants', () => {
  const suite = browserSuite({
    admin: ADMIN,
    upstream: { type: 'radarr', instanceName: 'Movies' },
    prefix: PREFIX,
    screenshotEachTest: true,
  });
  let server: ServerProcess;
  let browser: Browser;
  let admin: AdminHttpClient;
  let origin: string;
  let app: AppDto;
  let proxy: ProxyConnectionDto;

  const callProxy = async (path: string, method = 'GET') => {
    const response = await fetch(`${server.url}/proxy/overseerr${path}`, {
      method,
      headers: { 'x-api-key': proxy.key },
    });
    await response.arrayBuffer();
    return response.status;
  };
  const usageTab = () => `${origin}/apps/${app.id}/proxies/${proxy.id}/usage`;
  const row = (page: Page, method: string, route: string) => page.getByTestId(`route-${method}-${route}`);

  beforeAll(async () => {
    ({ server, browser, admin, origin } = suite);
    ({ app, proxy } = await seedProxy(admin, {
      upstream: suite.upstream,
      app: { name: 'Overseerr', slug: 'overseerr' },
      config: {
        overrides: { '/api/v3/movie': ['get'], '/api/v3/calendar': ['get'], '/api/v3/system/status': ['get'] },
        active: true,
      },
    }));
    for (let i = 0; i < 3; i += 1) expect(await callProxy('/api/v3/movie')).toBe(200);
    expect(await callProxy('/api/v3/system/status')).toBe(200);
    expect(await callProxy('/api/v3/config/host')).toBe(403);
    expect(await callProxy('/api/v3/config/host')).toBe(403);
    expect(await callProxy('/api/v3/movie/1', 'DELETE')).toBe(403);
    // Refusals become warnings behind the response; the DELETE's is dismissed, so its grant goes
    // through the configuration rather than the warning.
    let warnings: WarningDto[] = [];
    await eventually('both refusals are warnings', async () => {
      warnings = (await admin.request<ListPage<WarningDto>>('GET', `/api/admin/v1/warnings?proxyId=${proxy.id}`)).items;
      return warnings.length === 2;
    });
    const deletion = warnings.find((w) => w.method === 'delete');
    await admin.request('POST', `/api/admin/v1/warnings/${deletion?.id}/dismiss`);
  });

  it('draws the traffic of all proxies on Home, with its summary, its table and the busiest apps', async () => {
    const { page } = browser;
    await page.goto(`${origin}/home`);
    const traffic = page.getByRole('region', { name: 'Traffic of all proxies' });
    const summary = traffic.getByTestId('traffic-summary');
    await summary.filter({ hasText: 'In the last 24 hours: 4 forwarded, 3 refused, 0 upstream errors.' }).waitFor();
    const canvas = traffic.getByRole('img', { name: /^In the last 24 hours: 4 forwarded/ });
    await eventually('the chart is painted', async () => (await paintedPixels(canvas)) > 500);
    await traffic.getByText('Calls per hour as a table').click();
    const hours = traffic.getByRole('table', { name: 'Calls per hour, hours with calls only' });
    expect(await hours.locator('tbody tr').count()).toBe(1);
    expect(await hours.locator('tbody td').allTextContents()).toEqual(['4', '3', '0']);
    const busiest = traffic.getByRole('table', { name: 'Busiest apps in the last 24 hours' });
    expect(await bodyRows(busiest)).toEqual(['Overseerr | 4 | 3 | 0']);
    // Another period: asked for again.
    await traffic.getByText('7 d', { exact: true }).click();
    await summary.filter({ hasText: 'In the last 7 days: 4 forwarded, 3 refused' }).waitFor();
    await browser.screenshot(`${PREFIX}-home`);
  });

  it("lists the proxy's top routes and its unused grants", async () => {
    const { page } = browser;
    await page.goto(usageTab());
    await page.getByTestId('traffic-summary').filter({ hasText: '4 forwarded, 3 refused' }).waitFor();
    await eventually('the chart is painted', async () => (await paintedPixels(page.getByRole('img'))) > 500);
    const table = page.getByRole('table', { name: 'Top routes' });
    await row(page, 'get', '/api/v3/movie').waitFor();
    expect(await bodyRows(table)).toEqual([
      'GET | /api/v3/movie | 3 | just now | Allowed | Deny',
      "GET | /api/v3/config/host Sensitive Holds the instance's own API key and its passwords, and can turn its authentication off or change where it listens. | 2 | just now | Refused | Grant",
      'DELETE | /api/v3/movie/{id} | 1 | just now | Refused | Grant',
      'GET | /api/v3/system/status | 1 | just now | Allowed | Deny',
    ]);
    const unused = page.getByRole('region', { name: 'Unused grants' });
    expect(await unused.getByRole('listitem').count()).toBe(1);
    await unused
      .getByTestId('unused-get-/api/v3/calendar')
      .getByRole('button', { name: 'Revoke GET /api/v3/calendar' })
      .waitFor();
    await browser.screenshot(`${PREFIX}-proxy`);
  });

  it('grants a refused route in one click (through its warning, or the configuration), and the call passes', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Grant GET /api/v3/config/host' }).click();
    // A sensitive call: the grant asks first, naming it.
    await page.getByRole('dialog').getByText('Grant GET /api/v3/config/host?').waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Grant', exact: true }).click();
    await page.getByText('Granted GET /api/v3/config/host: saved as a new revision').waitFor();
    await row(page, 'get', '/api/v3/config/host').getByText('Allowed').waitFor();
    expect(await callProxy('/api/v3/config/host')).toBe(200);
    const warnings = await admin.request<ListPage<WarningDto>>('GET', `/api/admin/v1/warnings?proxyId=${proxy.id}`);
    expect(warnings.items.find((w) => w.route === '/api/v3/config/host')?.status).toBe('granted');

    await page.getByRole('button', { name: 'Grant DELETE /api/v3/movie/{id}' }).click();
    await page.getByText('Granted DELETE /api/v3/movie/{id}: saved as a new revision').waitFor();
    await row(page, 'delete', '/api/v3/movie/{id}').getByText('Allowed').waitFor();
    expect(await callProxy('/api/v3/movie/1', 'DELETE')).toBe(200);
  });

  it('denies an allowed route and revokes an unused grant in one click each; each is a revision', async () => {
    const { page } = browser;
    await page.getByRole('button', { name: 'Deny GET /api/v3/movie' }).click();
    await page.getByText('Denied GET /api/v3/movie: saved as a new revision').waitFor();
    await row(page, 'get', '/api/v3/movie').getByText('Refused').waitFor();
    expect(await callProxy('/api/v3/movie')).toBe(403);

    const unused = page.getByRole('region', { name: 'Unused grants' });
    await unused.getByRole('button', { name: 'Revoke GET /api/v3/calendar' }).click();
    await page.getByText('Revoked GET /api/v3/calendar: saved as a new revision').waitFor();
    await unused.getByText('Every grant was called in the last 24 hours.').waitFor();
    expect(await callProxy('/api/v3/calendar')).toBe(403);
    // The other grants are untouched.
    expect(await callProxy('/api/v3/system/status')).toBe(200);

    const revisions = await admin.request<ListPage<RevisionDto>>('GET', `/api/admin/v1/proxies/${proxy.id}/revisions`);
    expect(revisions.items.slice(0, 4).map((r) => [r.kind, r.author])).toEqual([
      ['manual', ADMIN.ADMIN_USERNAME],
      ['manual', ADMIN.ADMIN_USERNAME],
      ['manual', ADMIN.ADMIN_USERNAME],
      ['warning-grant', ADMIN.ADMIN_USERNAME],
    ]);
    await page.getByRole('link', { name: 'See the history' }).click();
    await page.getByText('Proxy created', { exact: false }).last().waitFor();
  });

  it.each(['light', 'dark'] as const)('meets WCAG 2.1 AA on Home and the usage tab (%s)', async (theme) => {
    const { page } = browser;
    await page.goto(`${origin}/home`);
    await useTheme(page, theme);
    await page.getByTestId('traffic-summary').filter({ hasText: 'forwarded' }).waitFor();
    await page.getByText('Calls per hour as a table').click();
    const found = (await axeViolations(page)).map((v) => `home [${theme}] ${v.id}: ${v.targets.join(', ')}`);
    await page.goto(usageTab());
    await page.getByTestId('traffic-summary').filter({ hasText: 'forwarded' }).waitFor();
    await row(page, 'get', '/api/v3/movie').waitFor();
    await page.getByText('Calls per hour as a table').click();
    found.push(...(await axeViolations(page)).map((v) => `usage [${theme}] ${v.id}: ${v.targets.join(', ')}`));
    await browser.screenshot(`${PREFIX}-${theme}`);
    expect(found).toEqual([]);
  });

  it('logged no console error', () => {
    expect(browser.errors).toEqual([]);
  });
});
