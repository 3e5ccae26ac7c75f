import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Locator, Page } from 'playwright-core';
import type {
  AppDto,
  Page as ListPage,
  ProxyConnectionDto,
  ProxyFitResponse,
  RevisionDto,
  ServiceDto,
  TemplateDto,
  TemplateFitResponse,
  WarningDto,
} from '@arrbiter/contracts';
import { eventually, seedProxy } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { AdminHttpClient } from '../support/admin-client';
import { axeViolations, useTheme } from '../support/axe';
import { Browser } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { ServerProcess } from '../support/server-process';
import { syncTemplates } from '../support/templates';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'known clients in the browser passphrase' };
const PREFIX = 'fit';
/** The project's copy of the community template repository, synced as a local directory. */
const TEMPLATE_REPO = resolve(__dirname, '../../../../libs/server/template-sync/src/testing/template-repo');

/** An element's text with its white space collapsed. */
async function text(locator: Locator): Promise<string> {
  return ((await locator.textContent()) ?? '').replace(/\s+/g, ' ').trim();
}

/**
 * The dashboard's side of known clients (what each client calls), on Maintainerr's community template for Radarr: the
 * proxy's Fit tab (grant one, revoke the unused after a confirmation listing them, grant the missing with the
 * sensitive ones ticked), the template's fit on the app form before saving,
 * the Templates page with the suggested file, and a warning marked with the client that makes the call.
 */
describe('known clients in the dashboard: fit, grants, the template preview and the suggested file', () => {
  const suite = browserSuite({
    admin: ADMIN,
    env: { TEMPLATE_ROOT: TEMPLATE_REPO },
    upstream: { type: 'radarr', instanceName: 'Movies' },
    prefix: PREFIX,
    screenshotEachTest: true,
  });
  let server: ServerProcess;
  let upstream: FakeServarr;
  let browser: Browser;
  let admin: AdminHttpClient;
  let origin: string;
  let app: AppDto;
  let proxy: ProxyConnectionDto;
  let template: TemplateDto;

  const callProxy = async (path: string, method = 'GET') => {
    const response = await fetch(`${server.url}/proxy/maintainerr${path}`, {
      method,
      headers: { 'x-api-key': proxy.key },
    });
    await response.arrayBuffer();
    return response.status;
  };
  const fitTab = () => `${origin}/apps/${app.id}/proxies/${proxy.id}/fit`;
  const serverFit = () => admin.request<ProxyFitResponse>('GET', `/api/admin/v1/proxies/${proxy.id}/fit`);
  const revisions = async () =>
    (await admin.request<ListPage<RevisionDto>>('GET', `/api/admin/v1/proxies/${proxy.id}/revisions`)).items;
  const summary = (page: Page) => page.getByTestId('fit-summary');

  beforeAll(async () => {
    ({ server, upstream, browser, admin, origin } = suite);
    const templates = await syncTemplates(admin, TEMPLATE_REPO);
    const found = templates.find((t) => t.name === 'maintainerr');
    if (!found) throw new Error('the maintainerr template did not sync');
    template = found;
    ({ app, proxy } = await seedProxy(admin, {
      upstream,
      app: { name: 'Maintainerr', slug: 'maintainerr', templateId: template.id },
      // A grant Maintainerr never uses, on top of its template.
      config: { overrides: { '/api/v3/calendar': ['get'] }, active: true },
    }));
    // Maintainerr's tag update is refused by its template: a warning.
    expect(await callProxy('/api/v3/movie/123', 'PUT')).toBe(403);
    await eventually('the refusal is a warning', async () => {
      const warnings = await admin.request<ListPage<WarningDto>>('GET', `/api/admin/v1/warnings?proxyId=${proxy.id}`);
      return warnings.items.length === 1;
    });
  });

  it("shows the fit of the template's client: what it calls, what the allowlist refuses, and where each call is made", async () => {
    const { page } = browser;
    const fit = await serverFit();
    expect(fit.client).toBe('maintainerr');
    // Maintainerr's community template misses more than half of its Radarr calls.
    expect(fit.missing.length).toBeGreaterThan(fit.calls / 2);
    expect(fit.unused).toEqual([
      { method: 'get', route: '/api/v3/calendar', risk: expect.objectContaining({ sensitive: false }), lastSeen: null },
    ]);
    const sensitive = fit.missing.filter((m) => m.risk.sensitive);
    expect(sensitive.map((m) => `${m.method} ${m.route}`)).toContain('post /api/v3/command');

    await page.goto(`${origin}/apps/${app.id}/proxies/${proxy.id}`);
    await page.getByRole('navigation', { name: 'Proxy' }).getByRole('link', { name: 'Fit' }).click();
    await summary(page).waitFor();
    expect(await text(summary(page))).toBe(
      `Maintainerr makes ${fit.calls} calls to Radarr; this allowlist refuses ${fit.missing.length} of them.`,
    );
    expect(await page.getByLabel('Known client', { exact: true }).inputValue()).toBe('maintainerr');

    const table = page.getByRole('table', { name: 'Refused calls' });
    const routes = new Set(fit.missing.map((m) => `${m.method}-${m.route}`));
    expect(await table.locator('tbody tr').count()).toBe(routes.size);
    const update = table.getByTestId('missing-put-/api/v3/movie/{id}');
    expect(await text(update.locator('td').nth(2))).toBe(
      '/api/v3/movie/123 from radarr.helper.ts (source, opens in a new tab) RadarrApi.updateMovie',
    );
    const maintainerr = fit.missing.find((m) => m.method === 'put' && m.route === '/api/v3/movie/{id}');
    const link = update.getByRole('link', { name: /^radarr\.helper\.ts/ });
    expect(await link.getAttribute('href')).toBe(
      `https://github.com/Maintainerr/Maintainerr/blob/9fb9dae9baec027a5de77f97123738ee3a060166/${maintainerr?.source.file}`,
    );
    // Each sensitive call is badged with its reason, and unticked.
    const command = table.getByTestId('missing-post-/api/v3/command');
    expect(await text(command.locator('td').nth(1))).toBe(
      `/api/v3/command Sensitive ${sensitive.find((m) => m.route === '/api/v3/command')?.risk.reason}`,
    );
    expect(await table.getByTestId('sensitive').count()).toBe(
      new Set(sensitive.map((m) => `${m.method} ${m.route}`)).size,
    );
    expect(
      await command.getByRole('checkbox', { name: 'Include POST /api/v3/command in Grant missing' }).isChecked(),
    ).toBe(false);
    const unused = page.getByRole('region', { name: 'Grants Maintainerr does not use' });
    expect(await text(unused.getByTestId('fit-unused-get-/api/v3/calendar').locator('td').nth(2))).toBe('none kept');
    expect(await unused.getByLabel('Not called through this proxy for').inputValue()).toBe('30');
    await browser.screenshot(`${PREFIX}-tab`);
  });

  it('grants one refused call as an ordinary revision: the call passes and the fit shows one less', async () => {
    const { page } = browser;
    const before = await serverFit();
    const calls = before.missing.filter((m) => m.method === 'put' && m.route === '/api/v3/movie/{id}').length;
    await page.getByRole('button', { name: 'Grant PUT /api/v3/movie/{id}' }).click();
    await page.getByText('Granted PUT /api/v3/movie/{id}: saved as a new revision').waitFor();
    await page.getByTestId('missing-put-/api/v3/movie/{id}').waitFor({ state: 'detached' });
    await summary(page)
      .filter({ hasText: `this allowlist refuses ${before.missing.length - calls} of them.` })
      .waitFor();
    expect(await callProxy('/api/v3/movie/123', 'PUT')).toBe(200);
    expect((await revisions())[0]).toMatchObject({ kind: 'manual', author: ADMIN.ADMIN_USERNAME });
  });

  it('revokes the grants unused for the period after a confirmation that lists them', async () => {
    const { page } = browser;
    const unused = page.getByRole('region', { name: 'Grants Maintainerr does not use' });
    await unused.getByLabel('Not called through this proxy for').selectOption('7');
    await unused.getByRole('button', { name: 'Revoke 1 unused…' }).click();
    const dialog = page.getByRole('dialog');
    expect(await text(dialog.getByTestId('confirm-items'))).toBe('GET /api/v3/calendar');
    await dialog.getByText('not called through this proxy in the last 7 days').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Revoke 1 grant' }).click();
    await page.getByText('Revoked 1 unused grant').waitFor();
    await unused.getByText('None for this period.').waitFor();
    expect(await callProxy('/api/v3/calendar')).toBe(403);
    expect((await revisions())[0]).toMatchObject({
      kind: 'client-fit',
      summary: { removed: [{ path: '/api/v3/calendar', method: 'get' }] },
    });
  });

  it('grants the missing calls with the sensitive one ticked, as one client-fit revision; the others stay refused', async () => {
    const { page } = browser;
    const before = await serverFit();
    const sensitive = before.missing.filter((m) => m.risk.sensitive && m.route !== '/api/v3/command');
    expect(before.missing.length).toBeGreaterThan(0);
    await page
      .getByTestId('missing-post-/api/v3/command')
      .getByRole('checkbox', { name: 'Include POST /api/v3/command in Grant missing' })
      .check();
    await page.getByRole('button', { name: /^Grant missing \(\d+\)$/ }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('It is one revision').waitFor();
    expect(await text(dialog.getByTestId('confirm-items'))).toBe('POST /api/v3/command (sensitive)');
    expect(await axeViolations(page)).toEqual([]);
    await dialog.getByRole('button', { name: 'Grant missing' }).click();
    await page.getByText('Granted Maintainerr’s refused calls').waitFor();
    // Only the sensitive calls left unticked are still refused.
    const after = await serverFit();
    expect(after.missing).toEqual(sensitive);
    expect(after).toMatchObject({ unused: [] });
    if (sensitive.length === 0) {
      await summary(page).filter({ hasText: 'this allowlist lets all of them through.' }).waitFor();
      await page.getByTestId('fit-complete').waitFor();
    } else await page.getByTestId(`missing-${sensitive[0].method}-${sensitive[0].route}`).waitFor();
    expect((await revisions())[0]).toMatchObject({ kind: 'client-fit', author: ADMIN.ADMIN_USERNAME });
    for (const [method, path] of [
      ['POST', '/api/v3/command'],
      ['GET', '/api/v3/rootfolder'],
      ['DELETE', '/api/v3/moviefile/456'],
    ])
      expect([method, path, await callProxy(path, method)]).toEqual([method, path, 200]);
    // The History tab names the revision's kind.
    await page.getByRole('link', { name: 'See the history' }).click();
    await page.getByText('Fitted to a known client').first().waitFor();
  });

  it('shows the fit of another client when one is picked, and says when the template matches none', async () => {
    const { page } = browser;
    await page.goto(fitTab());
    await summary(page).waitFor();
    await page.getByLabel('Known client', { exact: true }).selectOption({ label: 'Overseerr' });
    const overseerr = await admin.request<ProxyFitResponse>(
      'GET',
      `/api/admin/v1/proxies/${proxy.id}/fit?client=overseerr`,
    );
    await summary(page).filter({ hasText: 'Overseerr makes' }).waitFor();
    expect(await text(summary(page))).toMatch(new RegExp(`^Overseerr makes ${overseerr.calls} calls to Radarr; `));

    // An app whose template no known client claims.
    const other = await admin.request<AppDto>('POST', '/api/admin/v1/apps', {
      name: 'No client',
      slug: 'no-client',
      templateId: null,
      active: true,
    });
    const service = (await admin.request<ServiceDto[]>('GET', '/api/admin/v1/services'))[0];
    const otherProxy = await admin.request<ProxyConnectionDto>('POST', `/api/admin/v1/apps/${other.id}/proxies`, {
      serviceId: service.id,
    });
    await page.goto(`${origin}/apps/${other.id}/proxies/${otherProxy.id}/fit`);
    await page.getByTestId('fit-empty').filter({ hasText: 'The app has no template' }).waitFor();
    expect(await page.getByTestId('fit-summary').count()).toBe(0);
  });

  it("shows the chosen template's fit on the app form before the app is saved", async () => {
    const { page } = browser;
    const expected = await admin.request<TemplateFitResponse>('GET', `/api/admin/v1/templates/${template.id}/fit`);
    const radarr = expected.services.find((s) => s.serviceType === 'radarr');
    if (!radarr) throw new Error('no radarr fit');
    await page.goto(`${origin}/apps`);
    await page.getByRole('button', { name: 'New app' }).click();
    await page.getByLabel('Name').fill('Maintainerr two');
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'maintainerr' });
    const preview = page.getByTestId('template-fit');
    await preview.getByText('Fit for Maintainerr').waitFor();
    const line = preview.getByTestId('fit-radarr');
    expect(await text(line.locator('summary'))).toBe(
      `radarr covers ${radarr.covered} of ${radarr.calls} calls, ${radarr.missing.length} missing`,
    );
    expect(radarr.missing.length).toBeGreaterThan(0);
    // Compact until opened, by keyboard as well.
    const firstMissing = line.getByText(radarr.missing[0].route, { exact: true }).first();
    expect(await firstMissing.isVisible()).toBe(false);
    await line.locator('summary').focus();
    await page.keyboard.press('Enter');
    await firstMissing.waitFor();
    await preview.getByTestId('fit-sonarr').waitFor();

    // A template no known client claims.
    await page.getByLabel('Template', { exact: true }).selectOption({ label: 'nzb360' });
    await preview.getByText('No known client matches this template').waitFor();
    // Nothing was saved.
    const apps = await admin.request<ListPage<AppDto>>('GET', '/api/admin/v1/apps');
    expect(apps.items.map((a) => a.name)).not.toContain('Maintainerr two');
    await page.getByRole('button', { name: 'Cancel' }).click();
  });

  it("shows each template's fit on the Templates page and downloads the suggested file", async () => {
    const { page } = browser;
    const fitRequests: string[] = [];
    const onRequest = (request: { url(): string }) => {
      const path = new URL(request.url()).pathname;
      if (/^\/api\/admin\/v1\/templates\/(.+\/)?fit$/.test(path)) fitRequests.push(path);
    };
    page.on('request', onRequest);
    await page.goto(`${origin}/templates`);
    const card = page.getByRole('article', { name: 'maintainerr' });
    const fit = card.getByRole('region', { name: 'Fit of maintainerr for Maintainerr' });
    await fit.getByTestId('fit-radarr').waitFor();
    const expected = await admin.request<TemplateFitResponse>('GET', `/api/admin/v1/templates/${template.id}/fit`);
    for (const s of expected.services)
      expect(await text(fit.getByTestId(`fit-${s.serviceType}`).locator('summary'))).toContain(
        `covers ${s.covered} of ${s.calls} calls`,
      );
    // Every template's fit came in one request.
    page.off('request', onRequest);
    expect(fitRequests).toEqual(['/api/admin/v1/templates/fit']);
    const [download] = await Promise.all([
      page.waitForEvent('download'),
      fit.getByRole('button', { name: 'Download radarr/maintainerr.json' }).click(),
    ]);
    expect(download.suggestedFilename()).toBe('radarr-maintainerr.json');
    const file = readFileSync(await download.path(), 'utf8');
    const response = await fetch(
      `${server.url}/api/admin/v1/templates/${template.id}/suggested?client=maintainerr&serviceType=radarr`,
      { headers: { cookie: admin.cookieHeader } },
    );
    expect(file).toBe(await response.text());
    const block = JSON.parse(file) as Record<string, string[]>;
    expect(block['/api/v3/movie/{id}']).toEqual(expect.arrayContaining(['delete', 'get', 'put']));
    // The client's sensitive calls are left out of the suggested file.
    expect(block['/api/v3/command']).toBeUndefined();
    await fit.getByRole('status').filter({ hasText: 'Downloaded radarr-maintainerr.json' }).waitFor();
    await browser.screenshot(`${PREFIX}-templates`);
  });

  it('marks a warning that a known client makes', async () => {
    const { page } = browser;
    await page.goto(`${origin}/warnings?proxyId=${proxy.id}`);
    const row = page.getByTestId('warning-put-/api/v3/movie/123');
    // Other clients may make the same call: Maintainerr's mark is one of them.
    const caller = row.getByTestId('known-caller').filter({ hasText: 'Maintainerr calls this' });
    // The source's link comes with the catalogue, which the page loads beside the warnings.
    await caller.getByRole('link').waitFor();
    expect(await text(caller)).toBe(
      'Known client Maintainerr calls this: radarr.helper.ts (source, opens in a new tab) RadarrApi.updateMovie',
    );
    // The calendar's warning: other clients call it, listed behind a disclosure.
    const calendar = page.getByTestId('warning-get-/api/v3/calendar');
    expect(await text(calendar.locator('details.known-callers summary'))).toMatch(/^\d+ known clients call this$/);
    expect(await calendar.getByTestId('known-caller').first().isVisible()).toBe(false);
    expect(await caller.getByRole('link').getAttribute('href')).toMatch(
      /^https:\/\/github\.com\/Maintainerr\/Maintainerr\/blob\/9fb9dae9baec027a5de77f97123738ee3a060166\/.*radarr\.helper\.ts$/,
    );
  });

  it.each(['light', 'dark'] as const)('meets WCAG 2.1 AA on the Fit tab and the warnings (%s)', async (theme) => {
    const { page } = browser;
    await page.goto(fitTab());
    await useTheme(page, theme);
    await page.getByLabel('Known client', { exact: true }).selectOption({ label: 'Overseerr' });
    await summary(page).filter({ hasText: 'Overseerr makes' }).waitFor();
    const found = (await axeViolations(page)).map((v) => `fit [${theme}] ${v.id}: ${v.targets.join(', ')}`);
    await page.goto(`${origin}/warnings?proxyId=${proxy.id}`);
    await page
      .getByTestId('warning-put-/api/v3/movie/123')
      .getByTestId('known-caller')
      .filter({ hasText: 'Maintainerr calls this' })
      .waitFor();
    // The calendar, refused since its grant was revoked, is called by several other clients: opened.
    const others = page.getByTestId('warning-get-/api/v3/calendar').locator('details.known-callers');
    await others.locator('summary').click();
    await others.getByTestId('known-caller').first().waitFor();
    found.push(...(await axeViolations(page)).map((v) => `warnings [${theme}] ${v.id}: ${v.targets.join(', ')}`));
    await browser.screenshot(`${PREFIX}-${theme}`);
    expect(found).toEqual([]);
  });

  it('logged no console error', () => {
    expect(browser.errors).toEqual([]);
  });
});
