import type { Locator, Page } from 'playwright-core';
import type { WebhookJsonPayload } from '@arrbiter/contracts';
import { WebhookReceiver } from '@arrbiter/server/testing';
import { axeViolations, useTheme } from '../support/axe';
import { Browser } from '../support/browser';
import { browserSuite } from '../support/browser-suite';

const ADMIN = { ADMIN_USERNAME: 'operator', ADMIN_PASSWORD: 'notifications browser passphrase' };
const PREFIX = 'notifications';
const TOKEN = 'BrowserHookSecret_0123456789abcdef';
const HOOK_PATH = `/hooks/${TOKEN}`;

describe('notifications settings in a real browser', () => {
  const suite = browserSuite({ admin: ADMIN, prefix: PREFIX });
  let receiver: WebhookReceiver;
  let browser: Browser;
  let origin: string;

  const section = (page: Page) => page.getByRole('region', { name: 'Notifications' });
  const webhook = (page: Page): Locator => section(page).getByRole('article');
  const tests = () => receiver.at(HOOK_PATH).filter((r) => (r.json as WebhookJsonPayload).event === 'test');

  const { step } = suite;

  async function noViolations(page: Page, state: string, theme: string): Promise<void> {
    await page.evaluate(() => document.fonts.ready);
    await browser.screenshot(`${PREFIX}-${theme}-${state.replace(/\W+/g, '-')}`).catch(() => undefined);
    const violations = (await axeViolations(page)).map((v) => `${v.id} (${v.help}): ${v.targets.join(', ')}`);
    expect([state, theme, violations]).toEqual([state, theme, []]);
  }

  beforeAll(async () => {
    ({ browser, origin } = suite);
    receiver = await WebhookReceiver.start();
    await browser.page.goto(`${origin}/settings`);
    await browser.page.getByRole('heading', { name: 'Settings' }).waitFor();
  });
  afterAll(async () => {
    await receiver?.stop();
  });

  it('adds a webhook, sends a test message that the receiver gets, and shows the result and the deliveries', async () => {
    const { page } = browser;
    await step('empty', async () => {
      await section(page).getByText('No webhooks yet').waitFor();
      await noViolations(page, 'empty', 'light');
    });
    await step('add', async () => {
      await section(page).getByRole('button', { name: 'Add webhook' }).click();
      const form = page.getByRole('form', { name: 'New webhook' });
      await form.getByLabel('JSON').check();
      // Nothing typed yet: the form says what is missing.
      await form.getByRole('button', { name: 'Add webhook' }).click();
      await form.getByRole('alert').getByText('Enter the webhook’s URL.').waitFor();
      await form.getByLabel('Webhook URL').fill(`${receiver.url}${HOOK_PATH}`);
      await form.getByRole('button', { name: 'None' }).click();
      // Rendered unchecked before it is checked again (else check() finds it checked and does nothing).
      await form.getByRole('checkbox', { name: 'Key rotated', checked: false }).waitFor();
      await form.getByLabel('Key rotated').check();
      await form.getByLabel('Service unreachable').check();
      await noViolations(page, 'new webhook form', 'light');
      // Saved from the keyboard.
      await form.getByLabel('Webhook URL').press('Enter');
      await section(page).getByText('Webhook added: send a test message to check it.').waitFor();
      await webhook(page).getByText(`${receiver.url}/hooks/…`).waitFor();
      await webhook(page).getByText('Events: Service unreachable, Key rotated.').waitFor();
      expect(await section(page).textContent()).not.toContain(TOKEN);
    });
    await step('test', async () => {
      await webhook(page).getByRole('button', { name: 'Send test message' }).click();
      await webhook(page).getByRole('status').getByText('Test message: Delivered (HTTP 200)').waitFor();
      expect(tests()).toHaveLength(1);
      expect(tests()[0].json).toMatchObject({ event: 'test', title: 'Test message from Arrbiter' });
      await webhook(page).getByRole('button', { name: 'Recent deliveries' }).click();
      const deliveries = webhook(page).getByRole('table', { name: 'Recent deliveries to this webhook, newest first' });
      await deliveries.getByRole('row').filter({ hasText: 'Test message' }).getByText('Delivered').waitFor();
      await noViolations(page, 'test delivered, deliveries open', 'light');
    });
    await step('failed test', async () => {
      receiver.answer(HOOK_PATH, 503);
      await webhook(page).getByRole('button', { name: 'Send test message' }).click();
      await webhook(page).getByText('Test message: Failed (HTTP 503): HTTP 503: {"error":"try later"}').waitFor();
      // The open list of deliveries shows it too, newest first.
      const rows = webhook(page).getByRole('table').getByRole('row');
      await rows.nth(1).getByText('Failed').waitFor();
      expect(tests()).toHaveLength(2);
      await browser.screenshot(`${PREFIX}-failed-test`);
    });
  });

  it('edits a webhook without retyping its URL, turns it off and on, and removes it', async () => {
    const { page } = browser;
    await step('edit', async () => {
      await webhook(page).getByRole('button', { name: 'Edit' }).click();
      const form = page.getByRole('form', { name: 'Edit webhook' });
      await form.getByText('Leave empty to keep the stored URL').waitFor();
      expect(await form.getByLabel('Webhook URL').inputValue()).toBe('');
      await form.getByLabel('New refused call').check();
      await noViolations(page, 'edit form', 'light');
      await form.getByRole('button', { name: 'Save webhook' }).click();
      await section(page).getByText('Webhook saved.').waitFor();
      await webhook(page).getByText('Events: New refused call, Service unreachable, Key rotated.').waitFor();
      // The stored URL was kept: the next test message arrives.
      await webhook(page).getByRole('button', { name: 'Send test message' }).click();
      await webhook(page).getByText('Test message: Delivered (HTTP 200)').waitFor();
      expect(tests()).toHaveLength(3);
    });
    await step('dark theme', async () => {
      await useTheme(page, 'dark');
      await webhook(page).getByRole('button', { name: 'Send test message' }).click();
      await webhook(page).getByText('Test message: Delivered (HTTP 200)').waitFor();
      await webhook(page).getByRole('button', { name: 'Recent deliveries' }).click();
      await webhook(page).getByRole('table').getByRole('row').nth(1).getByText('Delivered').waitFor();
      await noViolations(page, 'test delivered, deliveries open', 'dark');
      await webhook(page).getByRole('button', { name: 'Edit' }).click();
      await page.getByRole('form', { name: 'Edit webhook' }).waitFor();
      await noViolations(page, 'edit form', 'dark');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await section(page).getByRole('button', { name: 'Add webhook' }).click();
      await page.getByRole('form', { name: 'New webhook' }).waitFor();
      await noViolations(page, 'new webhook form', 'dark');
      await page.getByRole('button', { name: 'Cancel' }).click();
      await useTheme(page, 'light');
    });
    await step('off and on', async () => {
      await webhook(page).getByRole('button', { name: 'Turn off' }).click();
      await section(page).getByText('Webhook turned off.').waitFor();
      await webhook(page).getByText('Off', { exact: true }).waitFor();
      await webhook(page).getByRole('button', { name: 'Turn on' }).click();
      await webhook(page).getByText('On', { exact: true }).waitFor();
    });
    await step('remove', async () => {
      await webhook(page).getByRole('button', { name: 'Remove' }).click();
      await page.getByRole('dialog').getByRole('button', { name: 'Remove webhook' }).click();
      await section(page).getByText('Webhook removed.').waitFor();
      await section(page).getByText('No webhooks yet').waitFor();
      await useTheme(page, 'dark');
      await section(page).getByText('No webhooks yet').waitFor();
      await noViolations(page, 'empty', 'dark');
      await useTheme(page, 'light');
    });
    expect(browser.errors.filter((e) => !/status of 40[01]/.test(e))).toEqual([]);
  });
});
