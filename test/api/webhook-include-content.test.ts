/**
 * `include_content` on webhooks, end to end against the shared local runtime: mail comes in over
 * SMTP to a receiving domain of a project of this file's own; its `email.received` event goes to
 * three webhooks: one made with `include_content: true` (through the SDK, as an extra body
 * field), one without, and one switched on by PATCH. The first and the last get the text, html
 * and attachment metadata in `data`; the other gets the event as before, and so does the first
 * for `email.stored`. A body past the inline
 * bound (256 KB of JSON with its headers) comes as a presigned `content_url` instead, and that URL
 * serves it.
 */
import { Resend, type CreateWebhookOptions, type UpdateWebhookOptions } from 'resend';
import { api, baseUrl } from '../support/http';
import { deliverMail } from '../support/smtp';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { type Receipt, WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();

/** generous: the machine has two cores and other suites run beside this one */
const SLOW = 60_000;

let key: string;
let domain: string;
let sdk: Resend;
const [withContent, without, patched] = [new WebhookReceiver(), new WebhookReceiver(), new WebhookReceiver()];
const as = () => ({ key });

beforeAll(async () => {
  await Promise.all([withContent.start(), without.start(), patched.start()]);
  ({ key } = await createOtherProject());
  sdk = new Resend(key, { baseUrl: baseUrl() });
  domain = `content-${Date.now().toString(36)}.example.com`;
  const created = await api.post('/domains', { name: domain, capabilities: { receiving: 'enabled' } }, as());
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`, undefined, as()),
    (r) => r.body.status === 'verified',
    15_000,
    200,
  );

  // the SDK sends its argument as the body: fields its types do not name go along
  const options = { endpoint: withContent.url, events: ['email.received', 'email.stored'], include_content: true };
  const first = await sdk.webhooks.create(options as CreateWebhookOptions);
  expect(first.error).toBeNull();
  expect(await api.get(`/webhooks/${first.data!.id}`, as())).toMatchObject({ body: { include_content: true } });
  expect((await api.post('/webhooks', { endpoint: without.url, events: ['email.received'] }, as())).status).toBe(201);
  const third = await api.post('/webhooks', { endpoint: patched.url, events: ['email.received'] }, as());
  expect(third.body.include_content).toBe(false);
  const update = { include_content: true } as UpdateWebhookOptions;
  expect((await sdk.webhooks.update(third.body.id, update)).error).toBeNull();
  expect(await api.get(`/webhooks/${third.body.id}`, as())).toMatchObject({ body: { include_content: true } });
});
afterAll(() => Promise.all([withContent.stop(), without.stop(), patched.stop()]));

/** The `email.received` delivery `receiver` got for the message with `subject`. */
const receivedBy = (receiver: WebhookReceiver, subject: string): Promise<Receipt> =>
  waitFor(
    async () => receiver.receipts.find((r) => r.json?.type === 'email.received' && r.json.data.subject === subject),
    (found) => found !== undefined,
    SLOW,
    200,
  ) as Promise<Receipt>;

const mail = (subject: string, body: string[]) =>
  deliverMail(
    'sender@outside.example',
    [`inbox@${domain}`],
    [
      'From: Sender <sender@outside.example>',
      `To: inbox@${domain}`,
      `Subject: ${subject}`,
      'MIME-Version: 1.0',
      ...body,
    ],
  );

it('carries text, html and attachment metadata to the webhooks that asked, and nothing more to the other', async () => {
  const subject = `Content ${Date.now()}`;
  const attachment = Buffer.from('a,b\n1,2\n');
  await mail(subject, [
    'Content-Type: multipart/mixed; boundary="outer"',
    '',
    '--outer',
    'Content-Type: multipart/alternative; boundary="alt"',
    '',
    '--alt',
    'Content-Type: text/plain; charset=utf-8',
    '',
    'Hello in plain text.',
    '--alt',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<p>Hello in <b>html</b>.</p>',
    '--alt--',
    '--outer',
    'Content-Type: text/csv; name="numbers.csv"',
    'Content-Disposition: attachment; filename="numbers.csv"',
    'Content-Transfer-Encoding: base64',
    '',
    attachment.toString('base64'),
    '--outer--',
  ]);

  const [full, plain, switched] = await Promise.all([
    receivedBy(withContent, subject),
    receivedBy(without, subject),
    receivedBy(patched, subject),
  ]);
  const received = await api.get(`/emails/receiving/${full.json.data.email_id}`, as());
  expect(received.status).toBe(200);
  const [meta] = received.body.attachments;
  expect(full.json.data).toMatchObject({
    email_id: received.body.id,
    text: received.body.text,
    html: received.body.html,
    content_url: null,
    content_url_expires_at: null,
    attachments: [{ id: meta.id, filename: 'numbers.csv', content_type: 'text/csv', size: attachment.length }],
  });
  expect(full.json.data.text).toContain('Hello in plain text.');
  expect(full.json.data.html).toContain('<p>Hello in <b>html</b>.</p>');
  expect(switched.json.data).toMatchObject({ text: full.json.data.text, html: full.json.data.html });

  // the webhook without include_content gets the event as before
  for (const field of ['text', 'html', 'content_url', 'content_url_expires_at'])
    expect(plain.json.data).not.toHaveProperty(field);
  expect(plain.json.data.attachments).toEqual([
    {
      id: meta.id,
      filename: 'numbers.csv',
      content_type: 'text/csv',
      content_disposition: 'attachment',
      content_id: null,
    },
  ]);
  expect(plain.json.data.email_id).toBe(full.json.data.email_id);

  // other event types to the same webhook are unchanged
  const stored = await waitFor(
    async () => withContent.receipts.find((r) => r.json?.type === 'email.stored' && r.json.data.subject === subject),
    (found) => found !== undefined,
    SLOW,
    200,
  );
  for (const field of ['text', 'html', 'content_url']) expect(stored!.json.data).not.toHaveProperty(field);
}, 90_000);

it('sends a body past 256 KB as a presigned content_url that serves it', async () => {
  const subject = `Large content ${Date.now()}`;
  const lines = Array.from({ length: 5000 }, (_, i) => `line ${i} ${'y'.repeat(70)}`);
  await mail(subject, ['Content-Type: text/plain; charset=utf-8', '', ...lines]);

  const [full, plain] = await Promise.all([receivedBy(withContent, subject), receivedBy(without, subject)]);
  expect(full.json.data).toMatchObject({
    text: null,
    html: null,
    content_url: expect.stringMatching(/^https?:\/\//),
    content_url_expires_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
  });
  const expiresIn = Date.parse(full.json.data.content_url_expires_at) - Date.now();
  expect(expiresIn).toBeGreaterThan(50 * 60 * 1000); // an hour from the attempt
  expect(expiresIn).toBeLessThanOrEqual(60 * 60 * 1000);
  expect(full.body.length).toBeLessThan(16 * 1024); // the delivery stays small

  const served = await fetch(full.json.data.content_url);
  expect(served.status).toBe(200);
  const body = (await served.json()) as { text: string; html: string | null; headers: Record<string, string> };
  expect(body.text).toContain('line 0 ');
  expect(body.text).toContain('line 4999 ');
  expect(body.html).toBeNull();

  expect(plain.json.data).not.toHaveProperty('content_url');
}, 90_000);
