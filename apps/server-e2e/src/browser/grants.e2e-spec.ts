import { mkdirSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import type { AllowlistResponse, Page as ListPage, ProxyConnectionDto, WarningDto } from '@arrbiter/contracts';
import { eventually, seedProxy } from '@arrbiter/server/testing';
import { axeViolations, useTheme } from '../support/axe';
import { browserSuite } from '../support/browser-suite';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'grants in the browser passphrase' };
const PREFIX = 'grants';
/** `README_SCREENSHOTS=1` rewrites the README's picture of a sensitive grant asking first. */
const README_IMAGE = resolve(__dirname, '../../../../docs/images/warnings-confirm.png');
/** The longest name an app may have (100), in one word: it must wrap, not scroll sideways. */
const LONG_NAME = 'Overlong' + 'n'.repeat(92);
/** Distinct refused paths per bulk proxy: under its 200 distinct warnings, 3 of them make 510 rows. */
const PER_PROXY = 170;

/** A letters-only segment per number (no digits: a number would be folded into `{id}`). */
function word(n: number): string {
  let out = '';
  let i = n;
  do {
    out = String.fromCharCode(97 + (i % 26)) + out;
    i = Math.floor(i / 26);
  } while (i > 0);
  return `zz${out}`;
}

describe('grants that ask, Undo, and the Warnings page at scale', () => {
  const suite = browserSuite({
    admin: ADMIN,
    upstream: { type: 'radarr', instanceName: 'Movies' },
    prefix: PREFIX,
    screenshotEachTest: true,
  });
  let overseerr: ProxyConnectionDto;
  const call = async (slug: string, key: string, path: string) => {
    const response = await fetch(`${suite.server.url}/proxy/${slug}${path}`, { headers: { 'x-api-key': key } });
    await response.arrayBuffer();
    return response.status;
  };
  const warnings = (query: string) =>
    suite.admin.request<ListPage<WarningDto>>('GET', `/api/admin/v1/warnings?${query}`);
  const warningsPage = (page: Page, query = '') => page.goto(`${suite.origin}/warnings${query}`);

  beforeAll(async () => {
    const { admin, upstream } = suite;
    const first = await seedProxy(admin, {
      upstream,
      app: { name: 'Overseerr', slug: 'overseerr' },
      config: { overrides: { '/api/v3/movie': ['get'] }, active: true },
    });
    overseerr = first.proxy;
    expect(await call('overseerr', overseerr.key, '/api/v3/system/backup')).toBe(403);
    expect(await call('overseerr', overseerr.key, '/api/v3/calendar')).toBe(403);
    expect(await call('overseerr', overseerr.key, '/api/v3/config/host')).toBe(403);
    const names = [LONG_NAME, 'Bulk B', 'Bulk C'];
    const bulk: string[] = [];
    for (const [i, name] of names.entries()) {
      const { proxy } = await seedProxy(admin, {
        service: first.service,
        app: { name, slug: `bulk-${i}` },
        config: { overrides: {}, active: true },
      });
      bulk.push(proxy.id);
      for (let n = 0; n < PER_PROXY; n += 1) {
        const status = await call(`bulk-${i}`, proxy.key, `/api/v3/${word(n)}`);
        expect(status).toBe(403);
      }
      // One path called more than once, to sort by count.
      for (let n = 0; n < 5 + i; n += 1) await call(`bulk-${i}`, proxy.key, `/api/v3/top${word(i)}`);
    }
    // Each proxy's own list (under 200 rows each): one page apiece.
    await eventually('every refusal is a warning', async () => {
      let count = 0;
      for (const proxyId of [overseerr.id, ...bulk])
        count += (await warnings(`proxyId=${proxyId}&limit=200`)).items.length;
      return count === 3 * PER_PROXY + 3 + 3;
    });
  });

  it('asks before a sensitive grant, naming it and why, and Undo puts the allowlist back as it was', async () => {
    const { page, admin } = suite;
    const before = await admin.request<AllowlistResponse>('GET', `/api/admin/v1/proxies/${overseerr.id}/allowlist`);
    await warningsPage(page, `?appId=${overseerr.appId}`);
    const row = page.getByTestId('warning-get-/api/v3/system/backup');
    await row.getByTestId('risk-badge').filter({ hasText: 'Sensitive' }).waitFor();
    await row.getByRole('button', { name: 'Grant GET /api/v3/system/backup' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('Grant GET /api/v3/system/backup?').waitFor();
    expect(await dialog.getByTestId('confirm-items').textContent()).toContain('GET /api/v3/system/backup (Sensitive)');
    if (process.env['README_SCREENSHOTS']) {
      mkdirSync(dirname(README_IMAGE), { recursive: true });
      await page.screenshot({ path: README_IMAGE });
    }
    await dialog.getByRole('button', { name: 'Grant', exact: true }).click();
    await page.getByTestId('grant-notice').filter({ hasText: 'Granted GET /api/v3/system/backup' }).waitFor();
    expect(await call('overseerr', overseerr.key, '/api/v3/system/backup')).toBe(200);

    await page.getByTestId('grant-undo').click();
    await page.getByTestId('undo-notice').filter({ hasText: 'Undone' }).waitFor();
    const after = await admin.request<AllowlistResponse>('GET', `/api/admin/v1/proxies/${overseerr.id}/allowlist`);
    expect(after.effective).toEqual(before.effective);
    expect(await call('overseerr', overseerr.key, '/api/v3/system/backup')).toBe(403);
  });

  it('leaves a sensitive row out of a bulk grant and says why', async () => {
    const { page } = suite;
    await warningsPage(page, `?appId=${overseerr.appId}&status=open`);
    const host = page.getByTestId('warning-get-/api/v3/config/host');
    const calendar = page.getByTestId('warning-get-/api/v3/calendar');
    await host.getByRole('checkbox').check();
    await calendar.getByRole('checkbox').check();
    await page.getByTestId('include-sensitive').waitFor();
    await page.getByTestId('bulk-grant').click();
    const notice = page.getByTestId('grant-notice');
    await notice.filter({ hasText: 'Granted 1 of 2.' }).waitFor();
    expect(await notice.textContent()).toContain('Skipped 1: GET /api/v3/config/host (sensitive');
    expect(await call('overseerr', overseerr.key, '/api/v3/calendar')).toBe(200);
    expect(await call('overseerr', overseerr.key, '/api/v3/config/host')).toBe(403);
  });

  it('sorts (by the server) and searches 500 warnings, keeping both in the address', async () => {
    const { page } = suite;
    await warningsPage(page, '?status=open');
    const table = page.getByRole('table', { name: 'Warnings' });
    await table.locator('tbody tr').first().waitFor();
    await loadMore(page, 100);
    await table.getByRole('button', { name: /^Count/ }).click();
    await page.waitForURL(/sort=count/);
    expect(page.url()).toContain('order=desc');
    // The address changes before the server's answer is shown: the old order may still be on screen.
    await eventually('the most-counted warning first', async () => {
      const first = await table.locator('tbody tr').first().getAttribute('data-testid');
      return first === 'warning-get-/api/v3/topzzc';
    });
    expect(await table.locator('th[aria-sort="descending"]').textContent()).toContain('Count');
    // The next pages follow the same order (a keyset cursor of the count sort): ties on count 1 included.
    await loadMore(page, 100);
    await loadMore(page, 150);
    const counts = await table.evaluate((t) => {
      const column = [...t.querySelectorAll('thead th')].findIndex((th) => th.textContent?.includes('Count'));
      return [...t.querySelectorAll('tbody tr')].map((row) => Number(row.children[column]?.textContent?.trim()));
    });
    expect(counts).toHaveLength(150);
    expect(counts).toEqual([...counts].sort((a, b) => b - a));

    await page.getByLabel('Path', { exact: true }).fill('zzbc');
    await page.waitForURL(/q=zzbc/);
    await eventually('only the rows whose path has zzbc', async () => {
      const ids = await table.locator('tbody tr').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-testid')));
      return ids.length === 3 && ids.every((id) => id?.includes('zzbc'));
    });
    // Reloaded, the address keeps the order and the search.
    await page.reload();
    await expectValue(page, 'zzbc');
    expect(await table.locator('th[aria-sort="descending"]').textContent()).toContain('Count');
  });

  it('has no sideways scroll at 390 px with a long app name, and the name is whole in a title', async () => {
    const { page } = suite;
    await page.setViewportSize({ width: 390, height: 844 });
    try {
      await warningsPage(page, '?q=zzb&sort=app&order=desc');
      await page.locator('tbody tr').first().waitFor();
      const link = page.locator(`a.app-name[title^="${LONG_NAME}"]`).first();
      await link.waitFor();
      const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      await suite.browser.screenshot(`${PREFIX}-390`);
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
    await warningsPage(page, '?q=zzb&sort=app&order=desc');
    await page.locator('tbody tr').first().waitFor();
    expect(await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth)).toBeLessThanOrEqual(0);
  });

  it('shows the open-warnings count in the navigation', async () => {
    const { page } = suite;
    await warningsPage(page);
    await page.getByRole('link', { name: /^Warnings, \d+\+? open$/ }).waitFor();
  });

  it.each(['light', 'dark'] as const)(
    'meets WCAG 2.1 AA on the Warnings page with risk marks and a grant (%s)',
    async (theme) => {
      const { page } = suite;
      await warningsPage(page, `?appId=${overseerr.appId}`);
      await useTheme(page, theme);
      await page.getByTestId('risk-badge').first().waitFor();
      await page.getByTestId('warning-tick').first().check();
      const found = (await axeViolations(page)).map((v) => `warnings [${theme}] ${v.id}: ${v.targets.join(', ')}`);
      expect(found).toEqual([]);
    },
  );

  it('logged no console error', () => {
    expect(suite.browser.errors).toEqual([]);
  });
});

async function expectValue(page: Page, value: string): Promise<void> {
  await eventually(
    'the search box keeps the search',
    async () => (await page.getByLabel('Path', { exact: true }).inputValue()) === value,
  );
}

/** Presses Load more and waits for `rows` rows (50 a page), with no error shown. */
async function loadMore(page: Page, rows: number): Promise<void> {
  const table = page.getByRole('table', { name: 'Warnings' });
  await page.getByRole('button', { name: 'Load more' }).click();
  await table
    .locator('tbody tr')
    .nth(rows - 1)
    .waitFor();
  expect(await page.getByRole('alert').count()).toBe(0);
}
