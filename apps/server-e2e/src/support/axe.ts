import axe from 'axe-core';
import type { Page } from 'playwright-core';

/** axe-core's browser build, injected into the page under test. */
const AXE_SOURCE = axe.source;

/** The WCAG 2.0/2.1 A and AA rules. */
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];

/** A violation as a test reads it: rule, impact and the elements' selectors. */
export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe-core's WCAG 2.1 AA rules on the page as it is and returns the violations (none: []). */
export async function axeViolations(page: Page): Promise<AxeViolation[]> {
  // Evaluated through the DevTools protocol: the dashboard's Content-Security-Policy refuses inline scripts.
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const axe = (window as unknown as { axe: { run: (...args: unknown[]) => Promise<AxeResults> } }).axe;
    interface AxeResults {
      violations: { id: string; impact: string | null; help: string; nodes: { target: unknown[] }[] }[];
    }
    const results = await axe.run(document, { runOnly: { type: 'tag', values: tags } });
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.map(String).join(' ')),
    }));
  }, TAGS);
}

/** Sets the dashboard's theme (as its toggle stores it) and reloads the page. */
export async function useTheme(page: Page, theme: 'light' | 'dark'): Promise<void> {
  await page.evaluate((value) => localStorage.setItem('arrbiter.theme', value), theme);
  await page.reload();
}
