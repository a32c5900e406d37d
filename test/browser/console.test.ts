/**
 * The web console in headless Chromium (issues 24 and 33): how it is served (CSP, caching, SPA paths),
 * sign-in and sign-out, a domain added and verified, an email sent through the API and followed to
 * `delivered` with its timeline, tags and text part, a bounce that becomes a suppression, the
 * overview's counts from one source with its rates coloured against the reputation guard, live and
 * test API keys created and revoked, a contact's properties and a template. Every screen it passes is
 * checked at 1280 and 390 px wide (axe: 0 serious or critical violations; the page no wider than the
 * screen) and pictured (./screens.ts).
 */
import type { Browser } from 'playwright-core';
import {
  clickUntil,
  consoleUrl,
  launchBrowser,
  openConsole,
  ownProject,
  signIn,
  type Watched,
} from '../support/browser';
import { api } from '../support/http';
import { dmarcXml, gz, mailReport, tlsJson } from '../support/reports';
import { waitFor } from '../support/wait';
import { checkScreen } from './screens';

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
    for (const directive of [
      "default-src 'none'",
      "script-src 'self'",
      "frame-ancestors 'none'",
      "base-uri 'none'",
      "connect-src 'self'",
    ])
      expect(csp).toContain(directive);
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
    for (const path of ['', '/emails/123', '/oauth/authorize'])
      expect((await fetch(consoleUrl(path))).status).toBe(200);
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
    await page.getByLabel('API key').waitFor();
    expect(await checkScreen(page, 'sign-in')).toEqual([]);
    await page.getByLabel('API key').fill('es_live_WrongKey000000000000000000000000');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByRole('alert').waitFor();
    await signIn(page, key);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByRole('heading', { name: 'Last 30 days' }).waitFor();
    expect(await page.evaluate('Object.keys(localStorage).length')).toBe(0);
    expect(await page.evaluate('Object.values(sessionStorage)')).toEqual([key]);
    expect(page.url()).not.toContain(key);
    expect(await checkScreen(page, 'overview-empty')).toEqual([]);
  });

  it('adds a domain, shows its DNS records with copy buttons, and verifies it', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Domains' }).click();
    await page.getByText('No domains yet').waitFor();
    await page.getByLabel('Domain name').fill(domainName);
    await page.getByRole('button', { name: 'Add domain' }).click();
    await page.getByRole('heading', { name: domainName }).waitFor();
    expect(await page.getByRole('button', { name: /Copy the value of record/ }).count()).toBeGreaterThanOrEqual(3);
    await clickUntil(
      page,
      'Verify DNS records',
      async () => (await page.locator('p .badge').first().textContent()) === 'verified',
    );
    expect(await checkScreen(page, 'domain')).toEqual([]);

    // its deliverability: the compliance checklist (nothing published yet: SPF fails and says what to publish), and
    // a week of DMARC reports with a source failing from the fourth day on, and a TLS report, mailed to its addresses
    const domainId = (await api.get('/domains', { key })).body.data.find(
      (d: { name: string }) => d.name === domainName,
    ).id;
    for (let daysAgo = 7; daysAgo >= 1; daysAgo--) {
      const rows = [
        { ip: '192.0.2.10', count: 400 + daysAgo * 37, pass: true },
        ...(daysAgo <= 4 ? [{ ip: '198.51.100.7', count: 30 * (5 - daysAgo), pass: false }] : []),
      ];
      await mailReport(`dmarc+${domainId}@reports.localhost`, [
        {
          name: `google.com!${domainName}!${daysAgo}.xml.gz`,
          type: 'application/gzip',
          bytes: gz(dmarcXml(domainName, `week-${daysAgo}`, rows, daysAgo)),
        },
      ]);
    }
    await mailReport(`tls+${domainId}@reports.localhost`, [
      {
        name: `google.com!${domainName}!1.json.gz`,
        type: 'application/tlsrpt+gzip',
        bytes: gz(tlsJson(domainName, 'tls-week')),
      },
    ]);
    await waitFor(
      () => api.get(`/domains/${domainId}/dmarc`, { key }),
      (r) => r.body.reports === 7,
      60_000,
    );
    await waitFor(
      () => api.get(`/domains/${domainId}/tls-reports`, { key }),
      (r) => r.body.data.length === 1,
      60_000,
    );
    await page.getByRole('link', { name: 'Deliverability' }).click();
    await page.getByRole('heading', { name: `Deliverability of ${domainName}` }).waitFor();
    const checklist = page.getByRole('region', { name: 'Compliance checklist' });
    await checklist.waitFor();
    const spf = checklist.getByRole('row', { name: /SPF of the sending domain/ });
    expect(await spf.locator('.badge').textContent()).toBe('fail');
    expect(await spf.textContent()).toContain(`Publish TXT "v=spf1 include:amazonses.com ~all" at send.${domainName}.`);
    await page.getByRole('img', { name: 'Messages passing and failing DMARC per day' }).waitFor();
    const failing = page.getByRole('region', { name: 'Sources failing DMARC' });
    expect(
      await failing
        .getByRole('row', { name: /198\.51\.100\.7/ })
        .locator('td')
        .nth(1)
        .textContent(),
    ).toBe('300');
    const tls = page.getByRole('region', { name: 'TLS reports' });
    expect(await tls.getByRole('row', { name: /Google Inc\./ }).textContent()).toContain('certificate-expired (2)');
    expect(await checkScreen(page, 'deliverability')).toEqual([]);

    await page.getByRole('link', { name: 'Domains' }).click();
    await page.getByRole('link', { name: domainName }).waitFor();
    expect(await checkScreen(page, 'domains')).toEqual([]);
  });

  it('follows an email sent through the API to delivered, with its timeline, preview, text part and tags', async () => {
    const { page } = watched;
    const sent = await api.post(
      '/emails',
      {
        from: `Console <hello@${domainName}>`,
        to: ['success@simulator.amazonses.com'],
        subject: 'Console delivery',
        html: '<h1>Hello</h1><p>from the API</p>',
        text: 'Hello, in plain text',
        tags: [{ name: 'campaign', value: 'welcome' }],
      },
      { key },
    );
    expect(sent.status).toBe(200);
    await page.getByRole('link', { name: 'Emails' }).click();
    await page.getByRole('link', { name: 'Console delivery' }).click();
    await clickUntil(
      page,
      'Refresh',
      async () => (await page.locator('.timeline .badge', { hasText: 'delivered' }).count()) > 0,
    );
    expect(await page.locator('.timeline .badge').allTextContents()).toEqual(
      expect.arrayContaining(['sent', 'delivered']),
    );
    const frame = page.locator('iframe.preview');
    expect(await frame.getAttribute('sandbox')).toBe('');
    expect(await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Hello' }).textContent()).toBe(
      'Hello',
    );
    expect(await page.getByRole('list', { name: 'Tags' }).textContent()).toBe('campaign: welcome');
    expect(await checkScreen(page, 'email')).toEqual([]);
    await page.getByRole('tab', { name: 'Text' }).click();
    expect(await page.getByTestId('text-part').textContent()).toBe('Hello, in plain text');
    await page.getByRole('link', { name: 'Emails' }).click();
    await page.getByRole('link', { name: 'Console delivery' }).waitFor();
    expect(await checkScreen(page, 'emails')).toEqual([]);
  });

  it('shows a bounced address on the Suppressions screen, filtered by source', async () => {
    const { page } = watched;
    const sent = await api.post(
      '/emails',
      { from: `hello@${domainName}`, to: ['bounce@simulator.amazonses.com'], subject: 'Will bounce', text: 'bye' },
      { key },
    );
    expect(sent.status).toBe(200);
    await waitFor(
      () => api.get('/suppressions?source=bounce', { key }),
      (r) => r.body.data.some((s: any) => s.email === 'bounce@simulator.amazonses.com'),
    );
    await page.getByRole('link', { name: 'Suppressions' }).click();
    await page.getByLabel('Source').selectOption('bounce');
    await page.getByRole('cell', { name: 'bounce@simulator.amazonses.com', exact: true }).waitFor();
    expect(await checkScreen(page, 'suppressions')).toEqual([]);
  });

  it('filters the Emails screen through the API: by tag, by status, cleared again', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Emails' }).click();
    const rows = page.getByRole('region', { name: 'Emails' }).locator('tbody tr');
    await page.getByLabel('Tag').fill('campaign:welcome');
    await page.getByRole('button', { name: 'Apply' }).click();
    /** the table holds exactly the email with this subject */
    const only = (subject: string) => async () =>
      (await rows.count()) === 1 && (await rows.first().getByRole('link').textContent()) === subject;
    await clickUntil(page, 'Refresh', only('Console delivery'));
    // the status applies at once; the bounce of the test before shows within seconds of its status change
    await page.getByLabel('Tag').fill('');
    await page.getByLabel('Status').selectOption('bounced');
    await clickUntil(page, 'Refresh', only('Will bounce'));
    await page.getByLabel('Recipient').fill('nobody@example.com');
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByText('No emails match these filters').waitFor();
    expect(await checkScreen(page, 'emails-filtered')).toEqual([]);
    await page.getByRole('button', { name: 'Clear' }).click();
    await page.getByRole('link', { name: 'Console delivery' }).waitFor();
    await page.getByRole('link', { name: 'Will bounce' }).waitFor();
  });

  it("counts today's mail from the metrics the chart draws, and colours a bounce rate past the guard's limit", async () => {
    // the bounced address is suppressed now: a third email is accepted (the quota's usage counts it) but never sent
    const suppressed = await api.post(
      '/emails',
      { from: `hello@${domainName}`, to: ['bounce@simulator.amazonses.com'], subject: 'Suppressed', text: 'no' },
      { key },
    );
    await waitFor(
      () => api.get(`/emails/${suppressed.body.id}`, { key }),
      (r) => r.body.last_event === 'suppressed',
    );
    const { page } = watched;
    await page.getByRole('link', { name: 'Overview' }).click();
    await page.getByTestId('sent-today').waitFor();
    // the success and the bounce were sent; the suppressed one was not
    expect(await page.getByTestId('sent-today').textContent()).toBe('2');
    expect(await page.locator('.legend span', { hasText: /^Sent / }).textContent()).toBe('Sent 2');
    // 1 bounce of 2 sent in 24 hours: past the guard's 4 %
    const bounceRate = page.getByTestId('bounce-rate');
    expect([await bounceRate.textContent(), await bounceRate.getAttribute('data-tone')]).toEqual(['50.00 %', 'bad']);
    await page.getByText('over the limit: the guard pauses sending at 4.00 %').waitFor();
    expect(await page.getByTestId('complaint-rate').getAttribute('data-tone')).toBe('good');
    expect(await checkScreen(page, 'overview')).toEqual([]);
  });

  it('creates an API key shown once, and revokes it', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByLabel('Key name').fill('from the console');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = (await page.getByTestId('new-key').textContent())!;
    expect(token).toMatch(/^es_live_[A-Za-z0-9]{32}$/);
    expect((await api.get('/domains', { key: token })).status).toBe(200);
    expect(await checkScreen(page, 'api-keys')).toEqual([]);
    await page.getByRole('button', { name: 'Revoke from the console' }).click();
    await page.getByRole('button', { name: 'Confirm revoking from the console' }).click();
    await page.getByRole('cell', { name: 'from the console', exact: true }).waitFor({ state: 'detached' });
    expect((await api.get('/domains', { key: token })).status).toBe(401);
  });

  it('creates a test-mode key with the mode selector', async () => {
    const { page } = watched;
    await page.getByLabel('Key name').fill('sandbox key');
    await page.getByLabel('Mode').selectOption('test');
    await page.getByRole('button', { name: 'Create key' }).click();
    const token = (await page
      .getByTestId('new-key')
      .filter({ hasText: /^es_test_/ })
      .textContent())!;
    expect(token).toMatch(/^es_test_[A-Za-z0-9]{32}$/);
    await page.getByText('Test key “sandbox key” (shown once').waitFor();
    // a live key lists live keys only: the new one is in the sandbox's list
    const listed = await api.get('/api-keys', { key: token });
    expect(listed.body.data).toEqual(
      expect.arrayContaining([expect.objectContaining({ name: 'sandbox key', mode: 'test' })]),
    );
    expect(await page.getByRole('cell', { name: 'sandbox key', exact: true }).count()).toBe(0);
  });

  it("shows a contact's properties", async () => {
    const property = await api.post('/contact-properties', { key: 'plan', type: 'string' }, { key });
    expect(property.status).toBe(201);
    const contact = await api.post(
      '/contacts',
      { email: 'ann@example.com', first_name: 'Ann', properties: { plan: 'pro' } },
      { key },
    );
    expect(contact.status).toBe(201);
    const { page } = watched;
    await page.getByRole('link', { name: 'Audience', exact: true }).click();
    await page.getByRole('link', { name: 'ann@example.com' }).click();
    const properties = page.getByRole('region', { name: 'Properties' });
    await properties.waitFor();
    expect(await properties.locator('tbody tr').allTextContents()).toEqual(['planpro']);
    expect(await checkScreen(page, 'contact')).toEqual([]);
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
      expect(await checkScreen(page, name)).toEqual([]);
    }
  });

  it('opens a template with its editor and preview', async () => {
    const { page } = watched;
    await page.getByRole('link', { name: 'Templates', exact: true }).click();
    await page.getByLabel('Template name').fill('Welcome');
    await page.getByRole('button', { name: 'New template' }).click();
    await page.getByRole('heading', { name: 'Welcome', level: 1 }).waitFor();
    await page.frameLocator('iframe.preview').locator('p').waitFor();
    expect(await checkScreen(page, 'template')).toEqual([]);
  });

  it('signs out and forgets the key', async () => {
    const { page } = watched;
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API key').waitFor();
    expect(await page.evaluate('sessionStorage.length')).toBe(0);
  });
});
