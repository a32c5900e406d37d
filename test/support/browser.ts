/**
 * The console in a real browser: Debian's chromium driven by playwright-core (no browser download;
 * CHROMIUM_PATH overrides the path), against the local runtime of the jest global setup.
 *
 * `openConsole()` gives a page that records what must never happen: a dialog (alert, confirm: the
 * console opens none, so one is a script that ran), a request that left for any origin but the
 * runtime's, and the CSP reports (the console itself causes none; hostile content may, as it is blocked). `checkA11y()` runs axe-core on the page as it is, injected through the DevTools
 * protocol (page.evaluate), which the page's CSP does not govern: the page keeps its real policy.
 * `screenshot()` writes test/browser/screenshots/<name>.png (git-ignored).
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page } from 'playwright-core';
import { createApiKey } from '../../shared/access/api-keys';
import { createProject } from '../../shared/project/projects';
import { baseUrl } from './http';
import { useRuntimeTable } from './table';

export const SCREENSHOTS = join(__dirname, '..', 'browser', 'screenshots');
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export function launchBrowser(): Promise<Browser> {
  return chromium.launch({ executablePath: process.env.CHROMIUM_PATH || '/usr/bin/chromium', args: ['--no-sandbox'] });
}

/** A project of the file's own, and a full-access key of it: the file's data is apart from every other suite's. */
export async function ownProject(name: string): Promise<{ projectId: string; key: string }> {
  useRuntimeTable();
  const project = await createProject(name);
  const { token } = await createApiKey(
    { projectId: project.id, livemode: true, permission: 'full_access' },
    { name: 'console test' },
  );
  return { projectId: project.id, key: token };
}

export interface Watched {
  page: Page;
  dialogs: string[];
  foreignRequests: string[];
  cspViolations: string[];
}

export async function openConsole(browser: Browser): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const origin = new URL(baseUrl()).origin;
  const watched: Watched = { page, dialogs: [], foreignRequests: [], cspViolations: [] };
  page.on('dialog', (dialog) => {
    watched.dialogs.push(`${dialog.type()}: ${dialog.message()}`);
    void dialog.dismiss();
  });
  // a request to another origin that left the page (answered, or failed on the network); one the CSP stopped
  // before it left (Chromium's failure `csp`) is a block, not a leak, and counts as a CSP report instead
  const foreign = (url: string) => !url.startsWith(origin) && !url.startsWith('data:') && !url.startsWith('about:');
  page.on('requestfinished', (request) => foreign(request.url()) && watched.foreignRequests.push(request.url()));
  page.on(
    'requestfailed',
    (request) =>
      foreign(request.url()) && request.failure()?.errorText !== 'csp' && watched.foreignRequests.push(request.url()),
  );
  page.on('console', (message) => {
    if (/Content Security Policy/i.test(message.text())) watched.cspViolations.push(message.text());
  });
  return watched;
}

export const consoleUrl = (path = '/') => `${baseUrl()}/dashboard${path}`;

/** Opens the console at `path` and signs in with `key` (sessionStorage only). */
export async function signIn(page: Page, key: string, path = '/'): Promise<void> {
  await page.goto(consoleUrl(path));
  await page.getByLabel('API key').fill(key);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/** axe-core's serious and critical violations on the page as it is now (rule id and the first offending node). */
export async function a11yViolations(page: Page): Promise<string[]> {
  if (!(await page.evaluate('typeof window.axe !== "undefined"'))) await page.evaluate(AXE_SOURCE);
  const violations = (await page.evaluate(
    'axe.run(document, { resultTypes: ["violations"] }).then((r) => r.violations.map((v) => ({ id: v.id, impact: v.impact, target: v.nodes[0] && v.nodes[0].target.join(" ") })))',
  )) as { id: string; impact: string; target: string }[];
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id} (${v.impact}) at ${v.target}`);
}

export async function screenshot(page: Page, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  await page.screenshot({ path: join(SCREENSHOTS, `${name}.png`), fullPage: true });
}

/** Clicks `button` until `done()` holds (a refresh button, a verify button): the runtime's workers take a moment. */
export async function clickUntil(
  page: Page,
  button: string,
  done: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await done())) {
    if (Date.now() > deadline) throw new Error(`still not done after clicking "${button}" for ${timeoutMs / 1000} s`);
    await page.getByRole('button', { name: button, exact: true }).click();
    await page.waitForTimeout(400);
  }
}
