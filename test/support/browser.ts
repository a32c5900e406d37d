/**
 * The console in a real browser: Debian's chromium driven by playwright-core (no browser download;
 * CHROMIUM_PATH overrides the path), against the local runtime of the jest global setup.
 *
 * `openConsole()` gives a page that records what must never happen: a dialog (alert, confirm: the
 * console opens none, so one is a script that ran), a request that left for any origin but the
 * runtime's, and the CSP reports (the console itself causes none; hostile content may, as it is blocked). `checkA11y()` runs axe-core on the page as it is, injected through the DevTools
 * protocol (page.evaluate), which the page's CSP does not govern: the page keeps its real policy.
 * `screenshot()` writes test/browser/screenshots/<name>.png (git-ignored). `settled()` waits until what
 * the page started has had its chance to happen, so that a check that something did not happen (no
 * dialog, no script's mark, no redirect) comes after it could have.
 */
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { type Browser, chromium, type Page, type Request } from 'playwright-core';
import { createApiKey } from '../../shared/access/api-keys';
import { createProject } from '../../shared/project/projects';
import { baseUrl } from './http';
import { useRuntimeTable } from './table';
import { waitFor } from './wait';

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

/** The requests playwright-core reports for a page not answered or failed yet, and how many it has made. */
class InFlight {
  private readonly open = new Set<Request>();
  private readonly waiting: (() => void)[] = [];
  made = 0;

  started(request: Request): void {
    this.open.add(request);
    this.made++;
  }

  ended(request: Request): void {
    this.open.delete(request);
    if (this.open.size === 0) for (const resolve of this.waiting.splice(0)) resolve();
  }

  /** Resolves when no request is in flight. */
  none(): Promise<void> {
    return this.open.size === 0 ? Promise.resolve() : new Promise((resolve) => this.waiting.push(resolve));
  }
}
const inFlight = new WeakMap<Page, InFlight>();

export async function openConsole(browser: Browser): Promise<Watched> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  const requests = new InFlight();
  inFlight.set(page, requests);
  page.on('request', (request) => requests.started(request));
  page.on('requestfinished', (request) => requests.ended(request));
  page.on('requestfailed', (request) => requests.ended(request));
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

/**
 * Waits until what the page (of openConsole) started has had its chance to happen: no request of
 * the page in flight (every load the screen started answered, every image loaded or failed), every
 * frame's load event (which the browser fires once the frame's images and frames loaded or failed,
 * their `onerror` run), then a rendered frame and a task after it (requestAnimationFrame, then
 * setTimeout: what the answers rendered, and the effects that render runs) in which no new request
 * started; else again. A dialog a script opened was reported before the page answers the last step
 * (an open dialog holds the page's scripts). The frames' load events stand in for their requests:
 * Chromium puts sandboxed frames (the previews) in a process of their own, whose requests
 * playwright-core does not report.
 */
export async function settled(page: Page): Promise<void> {
  const requests = inFlight.get(page);
  if (!requests) throw new Error('settled() needs a page of openConsole(), which follows its requests');
  for (;;) {
    const made = requests.made;
    await requests.none();
    // a frame without a url never committed a document (its navigation refused, as a `javascript:` src
    // the CSP blocks): it has no load to wait for
    for (const frame of page.frames()) if (frame.url()) await frame.waitForLoadState('load');
    await page.evaluate('new Promise((done) => requestAnimationFrame(() => setTimeout(done)))');
    if (requests.made === made) return;
  }
}

/**
 * Clicks `button` until `done()` holds (a refresh button, a verify button): the runtime's workers
 * take a moment. `done()` reads the page once the click's answer is rendered (settled), and the
 * clicks are paced by waitFor's polling.
 */
export async function clickUntil(
  page: Page,
  button: string,
  done: () => Promise<boolean>,
  timeoutMs = 20_000,
): Promise<void> {
  if (await done()) return;
  await waitFor(
    async () => {
      await page.getByRole('button', { name: button, exact: true }).click();
      await settled(page);
      return done();
    },
    (ok) => ok,
    timeoutMs,
  ).catch((error: Error) => {
    throw new Error(`still not done after clicking "${button}" for ${timeoutMs / 1000} s (${error.message})`);
  });
}
