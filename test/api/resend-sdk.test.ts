/**
 * The official `resend` SDK, unmodified (`new Resend(key, { baseUrl })`), against the local
 * runtime: every operation both APIs have for API keys, domains, emails, segments, broadcasts
 * and webhooks returns `data` and no `error`. (Templates: resend-sdk-templates.test.ts;
 * contacts and topics: resend-sdk-contacts.test.ts.) The README lists what is not supported.
 */
import { Resend } from 'resend';
import { TEST_API_KEY } from '../support/constants';
import { baseUrl } from '../support/http';
import { waitFor } from '../support/wait';
import { uniqueName as unique } from '../support/unique';

let resend: Resend;

/** `data` of an SDK answer, failing the test with the SDK's error if there is one. */
function dataOf<T>(answer: { data: T | null; error: unknown }): T {
  expect(answer.error).toBeNull();
  expect(answer.data).not.toBeNull();
  return answer.data as T;
}

let domainName: string;
let domainId: string;

beforeAll(async () => {
  resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
  domainName = `${unique('sdk')}.example.com`;
  domainId = dataOf(await resend.domains.create({ name: domainName })).id;
  await waitFor(
    async () => dataOf(await resend.domains.verify(domainId)) && dataOf(await resend.domains.get(domainId)),
    (d) => d.status === 'verified',
  );
});

it('api keys: create, list, update, remove', async () => {
  const key = dataOf(await resend.apiKeys.create({ name: unique('sdk key'), permission: 'sending_access' }));
  expect(key).toMatchObject({ id: expect.any(String), token: expect.stringMatching(/^es_live_/) });
  expect(dataOf(await resend.apiKeys.list()).data.map((k) => k.id)).toContain(key.id);
  const renamed = unique('renamed');
  expect(dataOf(await resend.apiKeys.update(key.id, { name: renamed }))).toMatchObject({
    object: 'api_key',
    id: key.id,
  });
  expect(dataOf(await resend.apiKeys.list()).data.find((k) => k.id === key.id)).toMatchObject({
    name: renamed,
    last_used_at: null,
  });
  dataOf(await resend.apiKeys.remove(key.id));
});

it('domains: create, get, list, update, verify, remove', async () => {
  const name = `${unique('sdk-domain')}.example.com`;
  const created = dataOf(
    await resend.domains.create({ name, region: 'ap-southeast-2', customReturnPath: 'bounces' } as never),
  );
  expect(created).toMatchObject({
    id: expect.any(String),
    name,
    records: expect.arrayContaining([expect.objectContaining({ record: 'MX', name: `bounces.${name}` })]),
  });
  expect(dataOf(await resend.domains.get(created.id))).toMatchObject({ id: created.id, name });
  expect(dataOf(await resend.domains.list()).data.map((d) => d.id)).toContain(created.id);
  expect(
    dataOf(await resend.domains.update({ id: created.id, openTracking: false, clickTracking: false, tls: 'enforced' })),
  ).toMatchObject({ id: created.id });
  expect(dataOf(await resend.domains.verify(created.id))).toMatchObject({ id: created.id });
  expect(dataOf(await resend.domains.remove(created.id))).toMatchObject({ id: created.id, deleted: true });
});

it('emails: send, batch, get, list, update, cancel', async () => {
  const from = `SDK <sdk@${domainName}>`;
  const sent = dataOf(
    await resend.emails.send({
      from,
      to: 'success@simulator.amazonses.com',
      subject: unique('sdk'),
      html: '<p>Hi</p>',
      tags: [{ name: 'kind', value: 'sdk' }],
    }),
  );
  expect(sent.id).toEqual(expect.any(String));
  const batch = dataOf(
    await resend.batch.send(
      [1, 2].map((i) => ({ from, to: ['success@simulator.amazonses.com'], subject: unique(`batch ${i}`), text: 'Hi' })),
    ),
  );
  expect(batch.data).toHaveLength(2);
  const permissive = dataOf(
    await resend.batch.send(
      [
        { from, to: ['success@simulator.amazonses.com'], subject: unique('kept'), text: 'Hi' },
        { from: 'nobody@not-ours.example.com', to: ['x@example.com'], subject: 'left out', text: 'Hi' },
      ],
      {
        batchValidation: 'permissive',
      },
    ),
  );
  expect(permissive.data).toHaveLength(1);
  expect(permissive.errors).toEqual([{ index: 1, message: expect.any(String) }]);
  expect(dataOf(await resend.emails.get(sent.id))).toMatchObject({ object: 'email', id: sent.id, from });
  expect(dataOf(await resend.emails.list()).data.length).toBeGreaterThan(0);
  const later = dataOf(
    await resend.emails.send({
      from,
      to: 'success@simulator.amazonses.com',
      subject: unique('later'),
      text: 'Hi',
      scheduledAt: new Date(Date.now() + 3_600_000).toISOString(),
    }),
  );
  expect(
    dataOf(await resend.emails.update({ id: later.id, scheduledAt: new Date(Date.now() + 7_200_000).toISOString() })),
  ).toMatchObject({ id: later.id });
  expect(dataOf(await resend.emails.cancel(later.id))).toMatchObject({ id: later.id });
});

it('emails: scheduledAt in natural language ("in 1 min"), answered as the ISO instant', async () => {
  const before = Date.now();
  const later = dataOf(
    await resend.emails.send({
      from: `SDK <sdk@${domainName}>`,
      to: 'success@simulator.amazonses.com',
      subject: unique('phrase'),
      text: 'Hi',
      scheduledAt: 'in 1 min',
    }),
  );
  const after = Date.now();
  const email = dataOf(await resend.emails.get(later.id));
  expect(email.last_event).toBe('scheduled');
  expect(Date.parse(email.scheduled_at!)).toBeGreaterThanOrEqual(before + 60_000);
  expect(Date.parse(email.scheduled_at!)).toBeLessThanOrEqual(after + 60_000);
  expect(dataOf(await resend.emails.cancel(later.id))).toMatchObject({ id: later.id });
});

it('emails: attachments (content, contentId, inferred type), then emails.attachments.list and get with a working download URL', async () => {
  const pdf = Buffer.from('%PDF-1.4 a tiny report');
  const sent = dataOf(
    await resend.emails.send({
      from: `SDK <sdk@${domainName}>`,
      to: 'success@simulator.amazonses.com',
      subject: unique('attached'),
      html: '<img src="cid:logo">',
      attachments: [
        { filename: 'report.pdf', content: pdf },
        { filename: 'logo.png', content: Buffer.from('png bytes').toString('base64'), contentId: 'logo' },
      ],
    }),
  );
  const listed = dataOf(await resend.emails.attachments.list({ emailId: sent.id }));
  expect(
    listed.data.map((a) => [a.filename, a.content_type, a.content_disposition, a.content_id ?? null, a.size]),
  ).toEqual([
    ['report.pdf', 'application/pdf', 'attachment', null, pdf.length],
    ['logo.png', 'image/png', 'inline', 'logo', 9],
  ]);
  const one = dataOf(await resend.emails.attachments.get({ emailId: sent.id, id: listed.data[0].id }));
  expect(Buffer.from(await (await fetch(one.download_url)).arrayBuffer())).toEqual(pdf);
});

it('suppressions: add, get, list, remove', async () => {
  const email = `${unique('sdk-suppressed')}@example.com`;
  const added = dataOf(await resend.suppressions.add({ email }));
  expect(added).toMatchObject({ object: 'suppression', email });
  expect(dataOf(await resend.suppressions.get(email))).toMatchObject({ id: added.id });
  expect(JSON.stringify(dataOf(await resend.suppressions.list()))).toContain(added.id);
  expect(dataOf(await resend.suppressions.remove(added.id))).toMatchObject({ id: added.id, deleted: true });
});

it('segments and broadcasts: create, get, list, update, send, cancel, duplicate, remove', async () => {
  const segment = dataOf(await resend.segments.create({ name: unique('sdk segment') }));
  expect(dataOf(await resend.segments.get(segment.id))).toMatchObject({ id: segment.id });
  expect(dataOf(await resend.segments.list()).data.map((s) => s.id)).toContain(segment.id);

  const from = `SDK <news@${domainName}>`;
  const broadcast = dataOf(
    await resend.broadcasts.create({
      segmentId: segment.id,
      from,
      subject: 'SDK',
      html: '<p>Hi {{{FIRST_NAME}}}</p>',
      name: 'sdk',
    }),
  );
  expect(
    dataOf(await resend.broadcasts.update(broadcast.id, { subject: 'SDK, again', previewText: 'news' })),
  ).toMatchObject({ id: broadcast.id });
  expect(dataOf(await resend.broadcasts.get(broadcast.id))).toMatchObject({
    id: broadcast.id,
    subject: 'SDK, again',
    status: 'draft',
  });
  expect(dataOf(await resend.broadcasts.list()).data.map((b) => b.id)).toContain(broadcast.id);
  expect(
    dataOf(await resend.broadcasts.send(broadcast.id, { scheduledAt: new Date(Date.now() + 3_600_000).toISOString() })),
  ).toMatchObject({ id: broadcast.id });
  expect(dataOf(await resend.broadcasts.cancel(broadcast.id))).toMatchObject({ id: broadcast.id });

  const copy = dataOf(await resend.broadcasts.duplicate(broadcast.id));
  expect(dataOf(await resend.broadcasts.get(copy.id))).toMatchObject({ status: 'draft', subject: 'SDK, again' });
  const draft = dataOf(
    await resend.broadcasts.create({ segmentId: segment.id, from, subject: 'SDK draft', text: 'Hi' }),
  );
  expect(dataOf(await resend.broadcasts.remove(draft.id))).toMatchObject({ id: draft.id, deleted: true });
  const now = dataOf(await resend.broadcasts.create({ segmentId: segment.id, from, subject: 'SDK now', text: 'Hi' }));
  expect(dataOf(await resend.broadcasts.send(now.id))).toMatchObject({ id: now.id });
  await waitFor(
    async () => dataOf(await resend.broadcasts.get(now.id)),
    (b) => b.status === 'sent',
  );
  expect(dataOf(await resend.segments.remove(segment.id))).toMatchObject({ id: segment.id, deleted: true });
});

it('webhooks: create, get, list, rotate the secret, update, remove', async () => {
  const webhook = dataOf(
    await resend.webhooks.create({
      endpoint: 'https://hooks.example.com/sdk',
      events: ['email.sent', 'email.delivered'],
    }),
  );
  expect(webhook).toMatchObject({ id: expect.any(String), signing_secret: expect.stringMatching(/^whsec_/) });
  expect(dataOf(await resend.webhooks.get(webhook.id))).toMatchObject({
    id: webhook.id,
    endpoint: 'https://hooks.example.com/sdk',
  });
  expect(dataOf(await resend.webhooks.list()).data.map((w) => w.id)).toContain(webhook.id);
  expect(dataOf(await resend.webhooks.rotateSigningSecret(webhook.id))).toMatchObject({
    id: webhook.id,
    signing_secret: expect.stringMatching(/^whsec_/),
  });
  expect(
    dataOf(await resend.webhooks.update(webhook.id, { events: ['email.bounced'], status: 'disabled' })),
  ).toMatchObject({ id: webhook.id });
  expect(dataOf(await resend.webhooks.remove(webhook.id))).toMatchObject({ id: webhook.id });
});
