/**
 * The console's two live screens in headless Chromium (issues 24 and 33): a broadcast composed, sent
 * to a small segment and watched until its progress reads sent; and a webhook endpoint that answers
 * 500 until its delivery has failed, then 200, its delivery retried from the console until delivered,
 * its attempts and payload read in the delivery's drawer, then the endpoint edited, disabled and deleted.
 */
import type { Browser } from 'playwright-core';
import { clickUntil, launchBrowser, openConsole, ownProject, signIn, type Watched } from '../support/browser';
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';
import { WebhookReceiver } from '../support/webhook-receiver';
import { checkScreen } from './screens';

let browser: Browser;
let key: string;
let domain: string;
let watched: Watched;

beforeAll(async () => {
  [browser, { key }] = await Promise.all([launchBrowser(), ownProject('console broadcasts')]);
  domain = await verifiedDomain(key, 'console');
  watched = await openConsole(browser);
  await signIn(watched.page, key);
});
afterAll(() => browser?.close());
afterEach(() => {
  expect(watched.dialogs).toEqual([]);
  expect(watched.cspViolations).toEqual([]);
});

it('composes a broadcast to a small segment, sends it and shows its progress reach sent', async () => {
  // names and addresses of this run's own: the shared runtime keeps what earlier runs of the file made (409)
  const attempt = Date.now().toString(36);
  const segmentName = `Console beta ${attempt}`;
  const segment = await api.post('/segments', { name: segmentName }, { key });
  for (const email of [
    `success+${attempt}-1@simulator.amazonses.com`,
    `success+${attempt}-2@simulator.amazonses.com`,
  ]) {
    expect(
      (await api.post('/contacts', { email, first_name: 'Beta', segments: [segment.body.id] }, { key })).status,
    ).toBe(201);
  }
  const { page } = watched;
  await page.getByRole('link', { name: 'Broadcasts' }).click();
  await page.getByRole('link', { name: 'New broadcast' }).click();
  await page.getByLabel('Name').fill(`November news ${attempt}`);
  await page.getByLabel('From').fill(`News <news@${domain}>`);
  await page.getByLabel('Subject').fill('What is new');
  await page.getByRole('option', { name: segmentName }).waitFor({ state: 'attached' });
  await page.getByLabel('Segment').selectOption({ label: segmentName });
  await page.getByLabel('HTML').fill('<h1>News</h1><p>Hi {{{FIRST_NAME|there}}}</p>');
  expect(await page.frameLocator('iframe.preview').getByRole('heading', { name: 'News' }).count()).toBe(1);
  expect(await checkScreen(page, 'broadcast-compose')).toEqual([]);
  const saved = page.waitForResponse((r) => r.url().endsWith('/broadcasts') && r.request().method() === 'POST', {
    timeout: 15_000,
  });
  // Scrolled to first: Playwright's own scroll-before-click left the button's point on the sandboxed
  // preview (an out-of-process frame just above it), so the click went to the frame and nothing was
  // submitted; once the button is in view the point is the button's (checked) and a click submits.
  const save = page.getByRole('button', { name: 'Save draft' });
  await save.scrollIntoViewIfNeeded();
  const pointIsButton = `(() => { const b = [...document.querySelectorAll('button')].find((x) => x.textContent === 'Save draft'); const r = b.getBoundingClientRect(); return document.elementFromPoint(r.x + r.width / 2, r.y + r.height / 2) === b; })()`;
  expect(await page.evaluate(pointIsButton)).toBe(true);
  await save.click();
  const answer = await saved;
  expect([answer.status(), await answer.text()]).toEqual([201, expect.any(String)]);
  await page
    .getByRole('heading', { name: `November news ${attempt}` })
    .waitFor({ timeout: 10_000 })
    .catch(async (error) => {
      throw new Error(`${error}\n${await page.locator('main').textContent()}`);
    });
  await page.getByRole('button', { name: 'Send now' }).click();
  // the page polls the broadcast every second while it goes out
  await page.getByTestId('progress').filter({ hasText: '2 / 2 sent' }).waitFor({ timeout: 20_000 });
  await page.locator('.badge', { hasText: /^sent$/ }).waitFor({ timeout: 20_000 });
  expect(await checkScreen(page, 'broadcast')).toEqual([]);
}, 45_000);

it('retries a failed webhook delivery from the console once the endpoint answers 200', async () => {
  const receiver = await new WebhookReceiver().start();
  receiver.status = 500;
  receiver.answer = 'not yet';
  try {
    const { page } = watched;
    await page.getByRole('link', { name: 'Webhooks' }).click();
    await page.getByLabel('Endpoint URL').fill(receiver.url);
    await page.getByRole('button', { name: 'Add endpoint' }).click();
    await page.getByText('Signing secret (shown once)').waitFor();
    expect(await page.locator('.notice code').textContent()).toMatch(/^whsec_/);
    await api.post(
      '/emails',
      { from: `hello@${domain}`, to: ['success@simulator.amazonses.com'], subject: 'Webhook me', text: 'hi' },
      { key },
    );
    // WEBHOOK_RETRY_SCHEDULE_SECONDS=1,1,1 in the test runtime: four attempts, then failed
    const failed = page.locator('tbody tr', { has: page.locator('.badge', { hasText: /^failed$/ }) });
    await clickUntil(page, 'Refresh', async () => (await failed.count()) > 0, 25_000);
    expect(await failed.first().textContent()).toContain('500');
    receiver.status = 200;
    receiver.answer = 'ok';
    const before = receiver.receipts.length;
    const retry = failed.first().getByRole('button', { name: /^Retry delivery/ });
    const deliveryId = (await retry.getAttribute('aria-label'))!.replace('Retry delivery ', '');
    await retry.click();
    await clickUntil(
      page,
      'Refresh',
      async () => (await page.locator('.badge', { hasText: /^delivered$/ }).count()) > 0,
      15_000,
    );
    expect(receiver.receipts.length).toBeGreaterThan(before);
    expect(await checkScreen(page, 'webhook')).toEqual([]);

    // the delivery's drawer: the payload as sent, and every attempt with its answer, newest first
    await page.getByRole('button', { name: new RegExp(`, delivery ${deliveryId}$`) }).click();
    const drawer = page.getByRole('dialog');
    await drawer.getByRole('heading', { name: 'Attempts' }).waitFor();
    const attempts = drawer.getByRole('region', { name: 'Attempts' }).locator('tbody tr');
    const answers = await attempts.locator('td:nth-child(2)').allTextContents();
    expect(answers[0]).toBe('200');
    expect(answers.slice(1)).toEqual(answers.slice(1).map(() => '500'));
    expect(answers.length).toBeGreaterThanOrEqual(2);
    expect(await attempts.last().locator('td:nth-child(3)').textContent()).toBe('not yet');
    const payload = JSON.parse((await drawer.getByTestId('payload').textContent())!);
    expect(payload).toEqual(receiver.receipts.at(-1)!.json);
    expect(await checkScreen(page, 'webhook-delivery')).toEqual([]);
    await page.keyboard.press('Escape');
    await drawer.waitFor({ state: 'detached' });

    // edited: a description and one event fewer
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    const form = page.getByRole('form', { name: 'Edit the webhook' });
    await form.getByLabel('Description').fill('Order system');
    await form.getByLabel('email.opened').uncheck();
    await form.getByRole('button', { name: 'Save changes' }).click();
    await page.getByText('Order system').waitFor();
    const webhookId = new URL(page.url()).pathname.split('/').pop()!;
    const edited = await api.get(`/webhooks/${webhookId}`, { key });
    expect(edited.body).toMatchObject({ description: 'Order system', status: 'enabled' });
    expect(edited.body.events).not.toContain('email.opened');
    expect(edited.body.events).toContain('email.clicked');

    await page.getByRole('button', { name: 'Disable' }).click();
    await page.getByRole('button', { name: 'Enable' }).waitFor();
    expect((await api.get(`/webhooks/${webhookId}`, { key })).body.status).toBe('disabled');

    await page.getByRole('button', { name: 'Delete' }).click();
    await page.getByRole('button', { name: 'Confirm delete' }).click();
    await page.getByText('No webhooks yet').waitFor();
    expect((await api.get(`/webhooks/${webhookId}`, { key })).status).toBe(404);
  } finally {
    await receiver.stop();
  }
}, 60_000);
