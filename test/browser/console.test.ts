/**
 * The web console in headless Chromium (issue 24): how it is served (CSP, caching, SPA paths),
 * sign-in and sign-out, a domain added and verified, an email sent through the API and followed to
 * `delivered` with its timeline, a bounce that becomes a suppression, and API keys created and
 * revoked. axe-core checks every screen it passes (0 serious or critical violations) and each screen
 * is saved as a screenshot (test/browser/screenshots/).
 */
import type { Browser } from 'playwright-core';
import { a11yViolations, clickUntil, consoleUrl, launchBrowser, openConsole, ownProject, screenshot, signIn, type Watched } from '../support/browser';
import { api } from '../support/http';
import { waitFor } from '../support/wait';

let browser: Browser;
let key: string;
let watched: Watched;
const domainName = `console-${Date.now().toString(36)}.example.com`;

beforeAll(async () => {
  [browser, { key }] = await Promise.all([launchBrowser(), ownProject('console test')]);
  watched = await openConsole(browser);
});
afterAll(() => browser?.close());

afterEach(() => {
  expect(watched.dialogs).toEqual([]);
  expect(watched.foreignRequests).toEqual([]);
  expect(watched.cspViolations).toEqual([]);
});

describe('serving /dashboard/', () => {
  it('answers the app with a strict CSP, no-cache for the page and a year for the hashed assets', async () => {
    const page = await fetch(consoleUrl('/'));
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    const csp = page.headers.get('content-security-policy')!;
    for (const directive of ["default-src 'none'", "script-src 'self'", "frame-ancestors 'none'", "base-uri 'none'", "connect-src 'self'"]) expect(csp).toContain(directive);
    expect(csp).not.toMatch(/script-src[^;]*unsafe/);
    expect(page.headers.get('x-content-type-options')).toBe('nosniff');
    expect(page.headers.get('referrer-policy')).toBe('no-referrer');
    expect(page.headers.get('cache-control')).toBe('no-cache');
    const body = await page.text();
    expect(body).not.toMatch(/<script>|<script(?![^>]*\bsrc=)[^>]*>/); // no inline script
    const script = /src="(\/dashboard\/assets\/app-[A-Z0-9]+\.js)"/.exec(body)![1];
    const asset = await fetch(new URL(script, consoleUrl('/')).toString());
    expect(asset.status).toBe(200);
    expect(asset.headers.get('content-type')).toMatch(/^text\/javascript/);
    expect(asset.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(asset.headers.get('content-security-policy')).toBe(csp);
  });

  it('answers the page for app paths (SPA routing) and 404 for file-like paths that are not assets; no key needed', async () => {
    for (const path of ['', '/emails/123', '/oauth/authorize']) expect((await fetch(consoleUrl(path))).status).toBe(200);
    for (const path of ['/assets/app-NOPE.js', '/favicon.ico', '/../../etc/passwd.txt']) {
      const res = await fetch(consoleUrl(path));
      expect(res.status).toBe(404);
      expect(await res.json()).toMatchObject({ name: 'not_found' });
    }
  });
});

describe('the console', () => {
  it('signs in with a full-access key kept in sessionStorage only, and shows the overview', async () => {
    const { page } = watched;
    await page.goto(consoleUrl('/'));
    expect(await a11yViolations(page)).toEqual([]);
    await page.getByLabel('API key').fill('es_live_WrongKey000000000000000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await signIn(page, key);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('heading', { name: 'Last 30 days' }).waitFor();
    expect(await page.evaluate('Object.keys(localStorage).length')).toBe(0);
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([key]);
    expect(page.url()).not.toContain(key);
    expect(await a11yViolations(page)).toEqual([]);
    await screenshot(page, 'overview');
  });

  it('adds a domain, shows its DNS records with copy buttons, and verifies it', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Domains' }).click();
    await page.getByLabel('Domain name').fill(domainName);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: domainName }).waitFor();
    expect(await page.getByRole('button', { name: /Copy the value of record/ }).count()).toBeGreaterThanOrEqual(3);
    await clickUntil(page, 'Verify DNS records', async () => (await page.locator('p .badge').first().textContent()) === 'verified');
    expect(await a11yViolations(page)).toEqual([]);
    await screenshot(page, 'domain');
  });

  it('follows an email sent through the API to delivered, with its timeline and preview', async () => {
    const { page } = watched;
    const sent = await api.post(
      '/emails',
      { from: `Console <hello@${domainName}>`, to: ['success@simulator.amazonses.com'], subject: 'Console delivery', html: '<h1>Hello</h1><p>from the API</p>' },
      { key },
    );
    expect(sent.status).toBe(200);
    await page.getByRole('link', { name: 'Emails' }).click();
    await page.getByRole('link', { name: 'Console delivery' }).click();
    await clickUntil(page, 'Refresh', async () => (await page.locator('.timeline .badge', { hasText: 'delivered' }).count()) > 0);
    expect(await page.locator('.timeline .badge').allTextContents()).toEqual(expect.arrayContaining(['sent', 'delivered']));
    const frame = page.locator('iframe.preview');
    expect(await frame.getAttribute('sandbox')).toBe('');
    expect(await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Hello' }).textContent()).toBe('Hello');
    expect(await a11yViolations(page)).toEqual([]);
    await screenshot(page, 'email');
    await page.getByRole('link', { name: 'Emails' }).click();
    await page.getByRole('link', { name: 'Console delivery' }).waitFor();
    await screenshot(page, 'emails');
  });

  it('shows a bounced address on the Suppressions screen, filtered by source', async () => {
    const { page } = watched;
    const sent = await api.post('/emails', { from: `hello@${domainName}`, to: ['bounce@simulator.amazonses.com'], subject: 'Will bounce', text: 'bye' }, { key });
    expect(sent.status).toBe(200);
    await waitFor(
      () => api.get('/suppressions?source=bounce', { key }),
      (r) => r.body.data.some((s: any) => s.email === 'bounce@simulator.amazonses.com'),
    );
    await page.getByRole('link', { name: 'Suppressions' }).click();
    await page.getByLabel('Source').selectOption('bounce');
    await page.getByRole('cell', { name: 'bounce@simulator.amazonses.com', exact: true }).waitFor();
    expect(await a11yViolations(page)).toEqual([]);
    await screenshot(page, 'suppressions');
  });

  it('creates an API key shown once, and revokes it', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('from the console');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = (await page.getByTestId('new-key').textContent())!;
    expect(token).toMatch(/^es_live_[A-Za-z0-9]{32}$/);
    expect((await api.get('/domains', { key: token })).status).toBe(200);
    expect(await a11yViolations(page)).toEqual([]);
    await screenshot(page, 'api-keys');
    await page.getByRole('button', { name: 'Revoke from the console' }).click();
    await page.getByRole('button', { name: 'Confirm revoking from the console' }).click();
    await page.getByRole('cell', { name: 'from the console', exact: true }).waitFor({ state: 'detached' });
    expect((await api.get('/domains', { key: token })).status).toBe(401);
  });

  it('passes axe on the audience, templates, broadcasts and webhooks screens', async () => {
    const { page } = watched;
    for (const [link, name] of [
      ['Audience', 'audience'],
      ['Templates', 'templates'],
      ['Broadcasts', 'broadcasts'],
      ['Webhooks', 'webhooks'],
    ]) {
      await page.getByRole('link', { name: link, exact: true }).click();
      await page.getByRole('heading', { name: link, exact: true, level: 1 }).waitFor();
      await page.waitForLoadState('networkidle');
      expect(await a11yViolations(page)).toEqual([]);
      await screenshot(page, name);
    }
  });

  it('signs out and forgets the key', async () => {
    const { page } = watched;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });
});
