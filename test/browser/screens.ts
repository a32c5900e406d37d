/**
 * A console screen checked and pictured at the two widths it is made for: 1280 px (a laptop) and
 * 390 px (a phone, where the layout is one column). At each width: axe-core's serious and critical
 * violations, and whether the page is wider than the screen (a table or form that pushes the page
 * sideways instead of scrolling in its own region); then a full-page screenshot.
 *
 * Screenshots go to test/browser/screenshots/ (git-ignored). With UPDATE_CONSOLE_SCREENSHOTS=1 they
 * go to docs/console/ instead, the pictures docs/console.md shows: a run that is meant to change
 * them, so an ordinary test run leaves the committed ones alone.
 */
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { a11yViolations, SCREENSHOTS } from '../support/browser';

export const WIDTHS = [1280, 390] as const;
const HEIGHT = 900;
const DIR =
  process.env.UPDATE_CONSOLE_SCREENSHOTS === '1' ? join(__dirname, '..', '..', 'docs', 'console') : SCREENSHOTS;

/** What is wrong with the page at either width (empty when nothing is), after a screenshot at each: `<name>-<width>.png`. */
export async function checkScreen(page: Page, name: string): Promise<string[]> {
  mkdirSync(DIR, { recursive: true });
  const problems: string[] = [];
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: HEIGHT });
    const overflow = (await page.evaluate(
      'document.documentElement.scrollWidth - document.documentElement.clientWidth',
    )) as number;
    if (overflow > 0) problems.push(`${width} px: the page is ${overflow} px wider than the screen`);
    for (const violation of await a11yViolations(page)) problems.push(`${width} px: ${violation}`);
    // the placeholders' shimmer is an animation: stopped, so a picture is the same from run to run
    await page.screenshot({ path: join(DIR, `${name}-${width}.png`), fullPage: true, animations: 'disabled' });
  }
  await page.setViewportSize({ width: WIDTHS[0], height: HEIGHT });
  return problems;
}
