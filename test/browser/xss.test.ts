/**
 * Script payloads in every value the console shows (issue 24): a contact's name, an email's subject
 * and HTML, a template's HTML. None runs: no dialog opens, no request leaves for another origin, the
 * CSP reports nothing. Text is escaped by Preact; HTML is shown only in a sandboxed srcdoc frame
 * without scripts (whose images are also limited to this origin and data: by the inherited CSP).
 */
import type { Browser } from 'playwright-core';
import { launchBrowser, openConsole, ownProject, settled, signIn, type Watched } from '../support/browser';
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';

const ATTACKER = 'https://attacker.example';
const PAYLOADS = [
  `<script>alert('xss-script')</script>`,
  `<img src=x onerror="alert('xss-img');fetch('${ATTACKER}/img')">`,
  `<svg onload="alert('xss-svg')"></svg>`,
  `"><iframe src="javascript:alert('xss-frame')"></iframe>`,
];
const PAYLOAD = PAYLOADS.join(' ');

let browser: Browser;
let key: string;
let watched: Watched;

beforeAll(async () => {
  [browser, { key }] = await Promise.all([launchBrowser(), ownProject('console xss')]);
  watched = await openConsole(browser);
  await signIn(watched.page, key);
});
afterAll(() => browser?.close());

// The CSP may report here: it is what blocks the payloads' `javascript:` frame and remote image inside the preview.
afterEach(() => {
  expect(watched.dialogs).toEqual([]);
  expect(watched.foreignRequests).toEqual([]);
  for (const report of watched.cspViolations) expect(report).toMatch(/JavaScript URL|attacker\.example/);
});

it('shows a contact whose name is a script as text', async () => {
  const created = await api.post(
    '/contacts',
    { email: 'xss@example.com', first_name: PAYLOADS[0].slice(0, 60), last_name: PAYLOADS[1].slice(0, 90) },
    { key },
  );
  expect(created.status).toBe(201);
  const { page } = watched;
  await page.getByRole('link', { name: 'Audience' }).click();
  await page.getByRole('cell', { name: 'xss@example.com' }).waitFor();
  expect(await page.locator('tbody').first().textContent()).toContain("<script>alert('xss-script')");
  await page.getByRole('link', { name: 'xss@example.com' }).click();
  await page.getByRole('heading', { name: 'xss@example.com' }).waitFor();
  await settled(page);
});

it('shows an email whose subject and HTML carry scripts: the subject as text, the HTML in a frame where nothing runs', async () => {
  const domain = await verifiedDomain(key, 'xss');
  const sent = await api.post(
    '/emails',
    { from: `x@${domain}`, to: ['success@simulator.amazonses.com'], subject: PAYLOADS[1], html: `<p>Hi</p>${PAYLOAD}` },
    { key },
  );
  expect(sent.status).toBe(200);
  const { page } = watched;
  await page.getByRole('link', { name: 'Emails' }).click();
  await page.getByRole('link', { name: PAYLOADS[1] }).click();
  await page.getByRole('heading', { name: PAYLOADS[1] }).waitFor();
  expect(await page.frameLocator('iframe.preview').getByText('Hi').count()).toBe(1);
  await settled(page);
  expect(await page.locator('img[onerror], svg[onload]').count()).toBe(0); // none in the console's own document
});

it('previews template HTML with scripts without running them', async () => {
  const template = await api.post('/templates', { name: 'xss template', html: `<h1>T</h1>${PAYLOAD}` }, { key });
  expect(template.status).toBe(201);
  const { page } = watched;
  await page.getByRole('link', { name: 'Templates' }).click();
  await page.getByRole('link', { name: 'xss template' }).click();
  await page.frameLocator('iframe.preview').getByRole('heading', { name: 'T' }).waitFor();
  await page.getByLabel('HTML').fill(`<h1>Edited</h1>${PAYLOAD}<img src="${ATTACKER}/pixel.png">`);
  await page.frameLocator('iframe.preview').getByRole('heading', { name: 'Edited' }).waitFor();
  await settled(page);
});
