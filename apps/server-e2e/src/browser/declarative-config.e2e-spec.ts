import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { AppDto, ConfigDocument, Page as ListPage } from '@arrbiter/contracts';
import { seedProxy } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { parse, stringify } from 'yaml';
import { AdminHttpClient } from '../support/admin-client';
import { axeViolations } from '../support/axe';
import { Browser } from '../support/browser';
import { browserSuite } from '../support/browser-suite';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'backup and configuration passphrase' };
const PREFIX = 'backup';

/** Settings → Backup & configuration in a real browser: export downloads, import dry run, then apply. */
describe('backup and declarative configuration in the dashboard', () => {
  const suite = browserSuite({
    admin: ADMIN,
    upstream: { type: 'radarr', instanceName: 'Movies' },
    prefix: PREFIX,
    screenshotEachTest: true,
  });
  let upstream: FakeServarr;
  let browser: Browser;
  let admin: AdminHttpClient;
  let work: string;
  let origin: string;

  beforeAll(async () => {
    ({ upstream, browser, admin, origin } = suite);
    work = mkdtempSync(join(tmpdir(), 'arrbiter-backup-'));
    await seedProxy(admin, { upstream, app: { name: 'Notifiarr', slug: 'notifiarr' } });
    await browser.page.goto(`${origin}/settings`);
    await browser.page.getByRole('heading', { name: 'Backup & configuration' }).waitFor();
  });
  afterAll(async () => {
    if (work) rmSync(work, { recursive: true, force: true });
  });

  it('downloads the configuration as YAML, and with secrets only after a confirmation', async () => {
    const { page } = browser;
    const [plain] = await Promise.all([
      page.waitForEvent('download'),
      page.getByRole('button', { name: 'Download' }).click(),
    ]);
    expect(plain.suggestedFilename()).toMatch(/^arrbiter-config-\d{4}-\d{2}-\d{2}\.yaml$/);
    const document = parse(readFileSync(await plain.path(), 'utf8')) as ConfigDocument;
    expect(document.apps?.map((a) => a.slug)).toEqual(['notifiarr']);
    expect(JSON.stringify(document)).not.toContain(upstream.options.apiKey);

    await page.getByRole('radio', { name: 'JSON' }).check();
    await page.getByLabel(/Include secrets/).check();
    await page.getByRole('button', { name: 'Download' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText('in clear text').waitFor();
    expect(await axeViolations(page)).toEqual([]);
    const [secret] = await Promise.all([
      page.waitForEvent('download'),
      dialog.getByRole('button', { name: 'Download with secrets' }).click(),
    ]);
    expect(secret.suggestedFilename()).toMatch(/\.json$/);
    const withSecrets = JSON.parse(readFileSync(await secret.path(), 'utf8')) as ConfigDocument;
    expect(withSecrets.services?.[0].apiKey).toBe(upstream.options.apiKey);
    await page.getByRole('status').filter({ hasText: 'with secrets' }).waitFor();
  });

  it('shows what an import would change (dry run), then applies it', async () => {
    const { page } = browser;
    const file = join(work, 'arrbiter.yaml');
    writeFileSync(
      file,
      stringify({
        version: 1,
        apps: [
          {
            slug: 'notifiarr',
            name: 'Notifiarr',
            proxies: [{ service: 'Movies', overrides: { '/api/v3/movie': ['get'] } }],
          },
          {
            slug: 'lunasea',
            name: 'LunaSea',
            proxies: [{ service: 'Movies', overrides: { '/api/v3/queue': ['get'] } }],
          },
        ],
      }),
    );
    await page.getByLabel(/Configuration document/).setInputFiles(file);
    await page.getByRole('button', { name: 'Check changes' }).click();
    const report = page.getByRole('region', { name: 'What the import would change' });
    await report.getByText('Would change apps: 1 created; proxies: 1 created, 1 updated.').waitFor();
    expect(await report.textContent()).toContain('lunasea');
    // A dry run changes nothing.
    expect((await admin.request<ListPage<AppDto>>('GET', '/api/admin/v1/apps')).items).toHaveLength(1);
    for (const theme of ['light', 'dark'] as const) {
      await page.evaluate((value) => localStorage.setItem('arrbiter.theme', value), theme);
      await page.evaluate((value) => document.documentElement.setAttribute('data-theme', value), theme);
      expect(await axeViolations(page)).toEqual([]);
    }
    await browser.screenshot(`${PREFIX}-dry-run`);

    await report.getByRole('button', { name: 'Apply' }).click();
    const applied = page.getByRole('region', { name: 'What the import changed' });
    await applied.getByText('Changed apps: 1 created; proxies: 1 created, 1 updated.').waitFor();
    const apps = (await admin.request<ListPage<AppDto>>('GET', '/api/admin/v1/apps')).items;
    expect(apps.map((a) => a.slug)).toEqual(['lunasea', 'notifiarr']);

    // Checked again, the same document has nothing left to change.
    await page.getByRole('button', { name: 'Check changes' }).click();
    await page.getByText('Nothing to change: this instance already matches the document.').waitFor();
  });

  it('lists every problem of an invalid document, naming where it is', async () => {
    const { page } = browser;
    const file = join(work, 'broken.json');
    writeFileSync(file, JSON.stringify({ version: 1, apps: [{ slug: 'Bad Slug', name: 'X', colour: 'red' }] }));
    await page.getByLabel(/Configuration document/).setInputFiles(file);
    await page.getByRole('button', { name: 'Check changes' }).click();
    const alert = page.getByRole('alert').filter({ hasText: 'nothing was changed' });
    await alert.waitFor();
    const text = await alert.textContent();
    expect(text).toContain('apps[0].slug must be 1-63 lower-case letters');
    expect(text).toContain('apps[0].colour is not a known field');
  });
});
