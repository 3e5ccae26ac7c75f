import type { Page } from 'playwright-core';
import type { AppDto, ProxyConnectionDto } from '@arrbiter/contracts';
import { seedProxy } from '@arrbiter/server/testing';
import { FakeServarr } from '@arrbiter/tools/fake-servarr';
import { axeViolations, useTheme } from '../support/axe';
import { Browser } from '../support/browser';
import { browserSuite } from '../support/browser-suite';
import { ServerProcess } from '../support/server-process';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'rotation and clone passphrase' };
const PREFIX = 'rotation';
const THEMES = ['light', 'dark'] as const;

describe('key rotation with a grace period and cloning an app, in a real browser', () => {
  const suite = browserSuite({ admin: ADMIN, upstream: { type: 'radarr', instanceName: 'Movies' }, prefix: PREFIX });
  let server: ServerProcess;
  let upstream: FakeServarr;
  let browser: Browser;
  let origin: string;
  let app: AppDto;
  let proxy: ProxyConnectionDto;
  let oldKey = '';

  const connectionPage = () => `${origin}/apps/${app.id}/proxies/${proxy.id}/connection`;
  const callWith = async (key: string) => {
    const response = await fetch(`${server.url}/proxy/overseerr/api/v3/movie`, { headers: { 'x-api-key': key } });
    await response.arrayBuffer();
    return response.status;
  };

  const { step } = suite;

  /** axe's WCAG 2.1 AA violations of the page as it is, named for the failure message. */
  async function violations(page: Page, name: string): Promise<string[]> {
    await page.evaluate(() => document.fonts.ready);
    await browser.screenshot(`${PREFIX}-${name.replace(/\W+/g, '-')}`).catch(() => undefined);
    return (await axeViolations(page)).map((v) => `${name}: ${v.id} (${v.help}): ${v.targets.join(', ')}`);
  }

  beforeAll(async () => {
    ({ server, upstream, browser, origin } = suite);
    const { admin } = suite;
    ({ app, proxy } = await seedProxy(admin, {
      upstream,
      app: { name: 'Overseerr', slug: 'overseerr' },
      config: { overrides: { '/api/v3/movie': ['get'] }, active: true },
    }));
    await admin.request('POST', '/api/admin/v1/apps', { name: 'Taken', slug: 'taken', templateId: null, active: true });
    oldKey = proxy.key;
  });

  it('offers a custom grace period and refuses one out of range', async () => {
    const { page } = browser;
    await step('custom grace', async () => {
      await page.goto(connectionPage());
      await page.getByRole('heading', { name: 'Key rotation' }).waitFor();
      await page.getByLabel('Keep the old key working for').selectOption({ label: 'Custom…' });
      const minutes = page.getByLabel('Minutes');
      // Typing only schedules the render: each state is waited for, not read straight after the keys.
      await minutes.fill('10081');
      await page.getByRole('button', { name: 'Rotate key', disabled: true }).waitFor();
      expect(await minutes.getAttribute('aria-invalid')).toBe('true');
      await minutes.fill('90');
      await page.getByRole('button', { name: 'Rotate key', disabled: false }).waitFor();
      expect(await minutes.getAttribute('aria-invalid')).toBe('false');
      await page.getByLabel('Keep the old key working for').selectOption({ label: '1 day' });
      await page.getByLabel('Minutes').waitFor({ state: 'detached' });
    });
  });

  it('rotates with a grace period: shows until when the old key works and how much it is still used', async () => {
    const { page } = browser;
    await step('rotate with grace', async () => {
      await page.getByRole('button', { name: 'Rotate key' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText('The current one keeps working for 1 day, then stops.').waitFor();
      await dialog.getByRole('button', { name: 'Rotate key' }).click();
      await page.getByRole('status').getByText('New key generated. The old key works until').waitFor();
      const panel = page.getByTestId('previous-key');
      await panel.getByText('Previous key valid until').waitFor();
      await panel.getByText('not used since the rotation').waitFor();
      // The new key is shown (revealed after a rotation); both keys work.
      const newKey = ((await page.getByTestId('proxy-key').textContent()) ?? '').trim();
      expect(newKey).toMatch(/^[0-9a-f]{32}$/);
      expect(newKey).not.toBe(oldKey);
      expect([await callWith(newKey), await callWith(oldKey), await callWith(oldKey)]).toEqual([200, 200, 200]);
      // Counted behind the scenes: refresh until the count shows.
      const used = panel.getByText(/used 2 times, last at/);
      for (let i = 0; i < 40 && !(await used.isVisible()); i++) {
        await page.waitForTimeout(250);
        await panel.getByRole('button', { name: 'Refresh' }).click();
      }
      await used.waitFor();
      await panel.getByText('A client still calls with the old key').waitFor();
      // The app's list of proxies says so too.
      await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Overseerr' }).click();
      await page.getByText('Old key valid until').waitFor();
      await page.goBack();
      await panel.waitFor();
    });
    await browser.screenshot(`${PREFIX}-grace-running`);
  });

  it('shows the grace period without WCAG 2.1 AA violations, light and dark', async () => {
    const { page } = browser;
    const found: string[] = [];
    for (const theme of THEMES) {
      await useTheme(page, theme);
      await page.getByTestId('previous-key').getByText('Previous key valid until').waitFor();
      found.push(...(await violations(page, `connection with a grace period [${theme}]`)));
      await page.getByLabel('Keep the old key working for').selectOption({ label: 'Custom…' });
      await page.getByLabel('Minutes').fill('0');
      found.push(...(await violations(page, `custom grace period, out of range [${theme}]`)));
      await page.goto(`${origin}/apps/${app.id}`);
      await page.getByText('Old key valid until').waitFor();
      found.push(...(await violations(page, `app with a proxy in a grace period [${theme}]`)));
      await page.goto(connectionPage());
    }
    expect(found).toEqual([]);
  });

  it('ends the grace period now: the old key stops working', async () => {
    const { page } = browser;
    await step('end grace', async () => {
      await page.goto(connectionPage());
      await page.getByRole('button', { name: 'End grace now' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'End grace now' }).click();
      await page.getByText('Grace period ended: the previous key no longer works.').waitFor();
      expect(await page.getByTestId('previous-key').count()).toBe(0);
      expect(await callWith(oldKey)).toBe(401);
    });
  });

  it('clones an app from its page: a dialog with the name and slug, then the new app', async () => {
    const { page } = browser;
    await step('clone', async () => {
      await page.goto(`${origin}/apps/${app.id}`);
      await page.getByRole('heading', { name: 'Overseerr', exact: true }).waitFor();
      await page.getByRole('button', { name: 'Clone' }).click();
      const dialog = page.getByRole('dialog', { name: 'Clone Overseerr' });
      await dialog.waitFor();
      // Keyboard: the dialog holds the focus; Escape closes it.
      await page.keyboard.press('Escape');
      await dialog.waitFor({ state: 'detached' });
      await page.getByRole('button', { name: 'Clone' }).click();
      await dialog.waitFor();
      expect(await dialog.getByLabel('Name').inputValue()).toBe('Overseerr (copy)');
      expect(await dialog.getByLabel('Slug').inputValue()).toBe('overseerr-copy');
      // A slug in use: the server's answer, in the dialog.
      await dialog.getByLabel('Slug').fill('taken');
      await dialog.getByRole('button', { name: 'Clone app' }).click();
      await dialog.getByRole('alert').getByText('The slug "taken" is already used by another app').waitFor();
      await dialog.getByLabel('Name').fill('Overseerr 4K');
      await dialog.getByLabel('Slug').fill('overseerr-4k');
      await dialog.getByRole('button', { name: 'Clone app' }).click();
      await page.getByRole('heading', { name: 'Overseerr 4K' }).waitFor();
      await page.getByText('/proxy/overseerr-4k').waitFor();
      await page.getByRole('link', { name: 'Movies (radarr)' }).waitFor();
      expect(page.url()).not.toContain(app.id);
    });
    await browser.screenshot(`${PREFIX}-cloned`);
  });

  it('shows the clone dialog without WCAG 2.1 AA violations, light and dark', async () => {
    const { page } = browser;
    const found: string[] = [];
    for (const theme of THEMES) {
      await page.goto(`${origin}/apps/${app.id}`);
      await useTheme(page, theme);
      await page.getByRole('button', { name: 'Clone' }).click();
      await page.getByRole('dialog', { name: 'Clone Overseerr' }).waitFor();
      found.push(...(await violations(page, `clone dialog [${theme}]`)));
    }
    expect(found).toEqual([]);
  });

  it('shows the admin API description in Swagger UI under the server’s Content-Security-Policy', async () => {
    const { page } = browser;
    await step('api docs', async () => {
      await page.goto(`${origin}/home`);
      await page.getByRole('navigation', { name: 'Sections' }).getByRole('link', { name: 'Admin API' }).click();
      await page.waitForURL(`${origin}/api/docs`);
      await page.getByRole('heading', { name: /Arrbiter admin API/ }).waitFor();
      await page.getByText('/api/admin/v1/proxies/{id}/rotate-key').first().waitFor();
    });
    await browser.screenshot(`${PREFIX}-api-docs`);
  });

  it('logged no unexpected console errors (a CSP violation would be one)', () => {
    // The deliberate clone onto a slug in use.
    const expected = (error: string) => /status of 409/.test(error) && /\/clone$/.test(error);
    expect(browser.errors.filter((error) => !expected(error))).toEqual([]);
  });
});
