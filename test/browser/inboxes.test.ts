/**
 * The Inboxes screen in headless Chromium. Seeded through the API: a domain with receiving enabled
 * and verified, an inbox on it, and two messages delivered over SMTP to the local runtime's inbound
 * server (one from Jane, text and HTML, the HTML with scripts; one from Bob), each waited for until
 * the API's search finds it (the index worker files a message a few seconds after it arrives). Then,
 * in the console: the list shows the inbox's unread count; the inbox lists both threads, unread in
 * bold; search finds Jane's by a word of its body, the word highlighted; her thread opens as a
 * conversation (the HTML in a sandboxed frame where its scripts never ran) and becomes read; a reply
 * shows in it as sent, and in the API; a label made on the inbox's page is added to the thread and
 * filters the list; Archive moves it to the Archive tab; a reply kept as a draft is edited on its page
 * and sent. Each screen is checked at both widths and pictured (./screens.ts).
 */
import type { Browser } from 'playwright-core';
import { launchBrowser, openConsole, ownProject, settled, signIn, type Watched } from '../support/browser';
import { api } from '../support/http';
import { deliverMail } from '../support/smtp';
import { waitFor } from '../support/wait';
import { checkScreen } from './screens';

let browser: Browser;
let key: string;
let watched: Watched;
// names of this run's own, as the other browser suites do
const attempt = Date.now().toString(36);
const domain = `inbox-console-${attempt}.example.com`;
const address = `support@${domain}`;
const inboxName = `Support ${attempt}`;
const subject = `Where is my order ${attempt}`;
const otherSubject = `Invoice question ${attempt}`;
const word = `quokka${attempt}`;
const labelName = `Orders ${attempt}`;
let inboxId: string;
let threadId: string;
let otherThreadId: string;

const threads = async (): Promise<any[]> =>
  (await api.get(`/inboxes/${inboxId}/threads?folders=inbox,sent,archive,spam,trash`, { key })).body.data ?? [];
const searched = async (query: string): Promise<any[]> =>
  (await api.get(`/inboxes/${inboxId}/threads/search?query=${encodeURIComponent(query)}`, { key })).body.data ?? [];
const messages = async (thread: string): Promise<any[]> =>
  (await api.get(`/inboxes/${inboxId}/threads/${thread}/emails`, { key })).body.data;

beforeAll(async () => {
  [browser, { key }] = await Promise.all([launchBrowser(), ownProject('console inboxes')]);
  const created = await api.post('/domains', { name: domain, capabilities: { receiving: 'enabled' } }, { key });
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`, undefined, { key }),
    (r) => r.body.status === 'verified',
  );
  const inbox = await api.post(
    '/inboxes',
    { email_address: address, name: inboxName, from_name: 'Acme Support' },
    { key },
  );
  expect(inbox.status).toBe(201);
  inboxId = inbox.body.id;

  await deliverMail(
    'jane@outside.example',
    [address],
    [
      'From: Jane Customer <jane@outside.example>',
      `To: ${address}`,
      `Subject: ${subject}`,
      `Message-ID: <order-${attempt}@outside.example>`,
      'MIME-Version: 1.0',
      'Content-Type: multipart/alternative; boundary="alt"',
      '',
      '--alt',
      'Content-Type: text/plain; charset=utf-8',
      '',
      `Hello, where is my order? A ${word} ate the tracking number.`,
      '--alt',
      'Content-Type: text/html; charset=utf-8',
      '',
      `<p>Hello, where is my <b>order</b>? A ${word} ate the tracking number.</p>`,
      `<script>document.body.setAttribute('data-ran', 'yes'); alert('inbox-script')</script>`,
      `<img src="x" alt="" width="1" height="1" onerror="document.body.setAttribute('data-ran', 'img')">`,
      '--alt--',
    ],
  );
  // Jane's mail searchable before the browser opens (the index follows within seconds)
  await waitFor(
    () => searched(word),
    (found) => found.some((t) => t.subject === subject),
    30_000,
  );
  await deliverMail(
    'bob@else.example',
    [address],
    [
      'From: Bob <bob@else.example>',
      `To: ${address}`,
      `Subject: ${otherSubject}`,
      `Message-ID: <invoice-${attempt}@else.example>`,
      '',
      'Could you send the invoice again?',
    ],
  );
  await waitFor(
    () => searched('invoice'),
    (found) => found.some((t) => t.subject === otherSubject),
    30_000,
  );
  const filed = await waitFor(
    threads,
    (list) => [subject, otherSubject].every((s) => list.some((t) => t.subject === s)),
    30_000,
  );
  threadId = filed.find((t) => t.subject === subject).id;
  otherThreadId = filed.find((t) => t.subject === otherSubject).id;
  watched = await openConsole(browser);
  await signIn(watched.page, key);
}, 120_000);
afterAll(() => browser?.close());

afterEach(() => {
  expect(watched.dialogs).toEqual([]);
  expect(watched.foreignRequests).toEqual([]);
  expect(watched.cspViolations).toEqual([]);
});

it('lists the inbox with its unread count', async () => {
  const { page } = watched;
  await page.getByRole('link', { name: 'Inboxes', exact: true }).click();
  const row = page.getByRole('row').filter({ has: page.getByRole('link', { name: inboxName, exact: true }) });
  await row.waitFor();
  expect(await row.locator('td').nth(1).textContent()).toBe(address);
  expect(await row.locator('td').nth(2).textContent()).toBe('2');
  expect(await checkScreen(page, 'inboxes')).toEqual([]);
});

it('opens the inbox: both threads listed, unread in bold', async () => {
  const { page } = watched;
  await page.getByRole('link', { name: inboxName, exact: true }).click();
  await page.getByRole('heading', { name: inboxName, level: 1 }).waitFor();
  expect(await page.getByRole('tab', { name: 'Inbox', exact: true }).getAttribute('aria-selected')).toBe('true');
  const link = page.getByRole('link', { name: subject, exact: true });
  await link.waitFor();
  expect(await page.locator(`li[data-thread="${threadId}"]`).getAttribute('class')).toBe('thread unread');
  expect(await link.evaluate((a) => (globalThis as any).getComputedStyle(a).fontWeight)).toBe('700');
  await page.getByRole('link', { name: otherSubject, exact: true }).waitFor();
});

it('searches by a word of the body, with the word highlighted', async () => {
  // searchable already (beforeAll waited for it); searched here first, before the conversation's
  // own mail goes into the index (see beforeAll)
  await waitFor(
    () => searched(word),
    (found) => found.some((t) => t.id === threadId),
    20_000,
  );
  const { page } = watched;
  await page.getByRole('searchbox', { name: 'Search' }).fill(word);
  await page.getByRole('button', { name: 'Search', exact: true }).click();
  await page.getByText(`Results in Inbox for “${word}”`).waitFor();
  await page.locator(`li[data-thread="${otherThreadId}"]`).waitFor({ state: 'detached' });
  const hit = page.locator(`li[data-thread="${threadId}"]`);
  expect(await hit.locator('.highlight mark').first().textContent()).toBe(word);
  expect(await hit.locator('.highlight').first().textContent()).toContain('ate the tracking number');
  await page.getByRole('button', { name: 'Clear' }).click();
  await page.locator(`li[data-thread="${otherThreadId}"]`).waitFor();
});

it('opens the conversation: the HTML in a sandboxed frame where its scripts did not run, and the thread becomes read', async () => {
  const { page } = watched;
  await page.getByRole('link', { name: subject, exact: true }).click();
  await page.getByRole('heading', { name: subject, level: 1 }).waitFor();
  const message = page.locator('li.message').first();
  expect(await message.getAttribute('data-direction')).toBe('inbound');
  expect(await message.locator('.message-from').textContent()).toBe('Jane Customer <jane@outside.example>');
  const frame = message.locator('iframe.preview');
  expect(await frame.getAttribute('sandbox')).toBe('');
  expect(await frame.getAttribute('srcdoc')).toContain('<script>');
  const content = message.frameLocator('iframe.preview');
  await content.getByText('where is my').waitFor();
  await settled(page);
  expect(await content.locator('body[data-ran]').count()).toBe(0);
  expect(await page.locator('body[data-ran]').count()).toBe(0);
  // opening it marked it read
  await page.getByRole('button', { name: 'Mark unread' }).waitFor();
  expect(await page.getByTestId('thread-read').textContent()).toBe('read');
  expect((await api.get(`/inboxes/${inboxId}/threads/${threadId}`, { key })).body.read).toBe(true);
  expect((await api.get(`/inboxes/${inboxId}`, { key })).body.unread).toBe(1);
});

it('replies: the reply shows in the conversation as sent, and in the API', async () => {
  const { page } = watched;
  await page.locator('li.message').first().getByRole('button', { name: 'Reply', exact: true }).click();
  const answer = `It ships today ${attempt}.`;
  await page.getByRole('textbox', { name: 'Reply to Jane Customer <jane@outside.example>' }).fill(answer);
  await page.getByRole('button', { name: 'Send reply' }).click();
  await page.getByText('Reply sent.').waitFor();
  const sent = page.locator('li.message[data-direction="outbound"]');
  await sent.waitFor();
  expect(await sent.locator('pre.text').textContent()).toBe(answer);
  expect(await sent.locator('.badge').textContent()).toBe('Sent');
  const conversation = await messages(threadId);
  expect(conversation.map((m) => m.direction)).toEqual(['inbound', 'outbound']);
  expect(conversation[1]).toMatchObject({ text: answer, subject: `Re: ${subject}`, to: ['jane@outside.example'] });
});

it('adds a label made on the inbox page to the thread, and filters the list by it', async () => {
  const { page } = watched;
  await page.getByRole('link', { name: `← ${inboxName}` }).click();
  await page.getByRole('heading', { name: inboxName, level: 1 }).waitFor();
  await page.getByLabel('New label').fill(labelName);
  await page.getByLabel('Colour').fill('#e93d82');
  await page.getByRole('button', { name: 'Add label' }).click();
  await page.getByRole('list', { name: 'Labels' }).getByText(labelName).waitFor();
  const label = (await api.get(`/inboxes/${inboxId}/labels`, { key })).body.data.find((l: any) => l.name === labelName);
  expect(label.color.toLowerCase()).toBe('#e93d82');

  await page.getByRole('link', { name: subject, exact: true }).click();
  await page.getByRole('heading', { name: subject, level: 1 }).waitFor();
  await page.getByLabel('Label to add').selectOption({ label: labelName });
  await page.getByRole('button', { name: 'Add label' }).click();
  await page.getByRole('button', { name: `Remove label ${labelName}` }).waitFor();
  expect((await api.get(`/inboxes/${inboxId}/threads/${threadId}`, { key })).body.labels).toEqual([
    expect.objectContaining({ id: label.id, name: labelName }),
  ]);
  expect(await checkScreen(page, 'inbox-thread')).toEqual([]);

  await page.getByRole('link', { name: `← ${inboxName}` }).click();
  const row = page.locator(`li[data-thread="${threadId}"]`);
  await row.locator('.chip', { hasText: labelName }).waitFor();
  expect(await page.locator(`li[data-thread="${otherThreadId}"]`).getAttribute('class')).toBe('thread unread');
  expect(await checkScreen(page, 'inbox')).toEqual([]);
  await page.getByRole('combobox', { name: /^Label/ }).selectOption({ label: labelName });
  await page.waitForURL(/label=/);
  await page.locator(`li[data-thread="${otherThreadId}"]`).waitFor({ state: 'detached' });
  await page.locator(`li[data-thread="${threadId}"]`).waitFor();
  expect(await page.locator('li.thread').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-thread')))).toEqual(
    [threadId],
  );
  await page.getByRole('combobox', { name: /^Label/ }).selectOption('');
  await page.locator(`li[data-thread="${otherThreadId}"]`).waitFor();
});

it('archives the thread: it leaves Inbox for Archive', async () => {
  const { page } = watched;
  await page.getByRole('link', { name: subject, exact: true }).click();
  await page.getByRole('heading', { name: subject, level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Archive', exact: true }).click();
  await page.getByRole('button', { name: 'Move to inbox' }).waitFor();
  expect(await page.getByTestId('thread-folder').textContent()).toBe('archive');
  expect((await api.get(`/inboxes/${inboxId}/threads/${threadId}`, { key })).body.folder).toBe('archive');
  // back to the folder the thread is in now
  await page.getByRole('link', { name: `← ${inboxName}` }).click();
  expect(await page.getByRole('tab', { name: 'Archive' }).getAttribute('aria-selected')).toBe('true');
  await page.getByRole('link', { name: subject, exact: true }).waitFor();
  await page.getByRole('tab', { name: 'Inbox', exact: true }).click();
  await page.getByRole('link', { name: otherSubject, exact: true }).waitFor();
  expect(await page.getByRole('link', { name: subject, exact: true }).count()).toBe(0);
});

it('keeps a reply as a draft, edits it on its page and sends it', async () => {
  const { page } = watched;
  await page.getByRole('link', { name: otherSubject, exact: true }).click();
  await page.getByRole('heading', { name: otherSubject, level: 1 }).waitFor();
  await page.getByRole('button', { name: 'Reply', exact: true }).click();
  await page.getByRole('textbox', { name: 'Reply to Bob <bob@else.example>' }).fill('First thoughts');
  await page.getByRole('button', { name: 'Save draft' }).click();
  await page.getByText('Reply kept as a draft.').waitFor();
  expect((await api.get(`/inboxes/${inboxId}`, { key })).body.drafts).toBe(1);

  await page.getByRole('link', { name: 'Open draft' }).click();
  await page.getByRole('heading', { name: 'Draft reply', level: 1 }).waitFor();
  const final = `Sent again ${attempt}`;
  await page.getByLabel('Text').fill(final);
  await page.getByRole('button', { name: 'Send', exact: true }).click();
  await page.getByRole('heading', { name: otherSubject, level: 1 }).waitFor();
  await page.locator('li.message[data-direction="outbound"] pre.text', { hasText: final }).waitFor();
  expect((await messages(otherThreadId)).map((m) => [m.direction, m.text?.trim() ?? null])).toEqual([
    ['inbound', 'Could you send the invoice again?'],
    ['outbound', final],
  ]);
  expect((await api.get(`/inboxes/${inboxId}`, { key })).body.drafts).toBe(0);
});
