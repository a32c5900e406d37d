/**
 * Inboxes through the official `resend` SDK against the local runtime: mail in over SMTP becomes a
 * thread; a reply through the API reaches the local SES with the threading headers; the outside
 * answer naming it lands in the same thread; labels, drafts, agent settings and folders; the 422s.
 * The suite uses a project of its own.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Resend } from 'resend';
import { api, baseUrl } from '../support/http';
import { deliverMail } from '../support/smtp';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();
jest.setTimeout(120_000);
const runtime = JSON.parse(readFileSync(join(process.env.TEST_DATA_DIR!, 'runtime.json'), 'utf8')) as {
  mailViewerUrl: string;
};
interface StoredMail {
  messageId: string;
  subject: string;
  destination: { to: string[]; cc: string[] };
  headers?: { name: string; value: string }[];
  attachments: { filename?: string; size: number }[];
  body: { text?: string; html?: string };
}
const viewerMail = async (subject: string): Promise<StoredMail | undefined> =>
  ((await fetch(`${runtime.mailViewerUrl}/store`).then((r) => r.json())) as { emails: StoredMail[] }).emails.findLast(
    (m) => m.subject === subject,
  );
const header = (mail: StoredMail, name: string) =>
  mail.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;

let key: string;
let projectId: string;
let resend: Resend;
let domain: string;
let address: string;
let inboxId: string;
const receiver = new WebhookReceiver();
let counter = 0;
const OUTREACH_WORD = `wombat${Date.now().toString(36)}`;

beforeAll(async () => {
  ({ key, projectId } = await createOtherProject());
  resend = new Resend(key, { baseUrl: baseUrl() });
  domain = `inbox-${Date.now().toString(36)}.example.com`;
  const created = await api.post('/domains', { name: domain, capabilities: { receiving: 'enabled' } }, { key });
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`, undefined, { key }),
    (r) => r.body.status === 'verified',
  );
  address = `support@${domain}`;
  await receiver.start();
  const hook = await api.post(
    '/webhooks',
    { endpoint: receiver.url, events: ['inbox.thread.created', 'inbox.message.received', 'inbox.message.sent'] },
    { key },
  );
  expect(hook.status).toBe(201);
  const inbox = await resend.inboxes.create({ emailAddress: address, name: 'Support', fromName: 'Acme Support' });
  expect(inbox.error).toBeNull();
  inboxId = inbox.data!.id;
});
afterAll(() => receiver.stop());

const mail = (subject: string, extra: string[] = [], from = 'Jane Customer <jane@outside.example>') => {
  const messageId = `<m${Date.now()}.${counter++}@outside.example>`;
  return {
    messageId,
    lines: [
      `From: ${from}`,
      `To: ${address}`,
      `Subject: ${subject}`,
      `Message-ID: ${messageId}`,
      ...extra,
      '',
      `Body of ${subject}`,
    ],
  };
};
const threadsWith = (subject: string) =>
  waitFor(
    async () =>
      (await resend.inboxes.threads.list({ inboxId, folders: ['inbox', 'sent', 'archive', 'spam', 'trash'] })).data
        ?.data ?? [],
    (threads) => threads.some((t) => t.subject === subject),
    30_000,
  ).then((threads) => threads.filter((t) => t.subject === subject));

describe('an inbox', () => {
  it('is created on a receiving domain only, once per address, and found by id or address', async () => {
    const byAddress = await resend.inboxes.get(address);
    expect(byAddress.data).toMatchObject({
      object: 'inbox',
      id: inboxId,
      email_address: address,
      name: 'Support',
      from_name: 'Acme Support',
      unread: expect.any(Number),
      drafts: 0,
      receiving_address: null,
    });
    const again = await resend.inboxes.create({ emailAddress: address });
    expect(again.error).toMatchObject({ statusCode: 409 });
    const elsewhere = await resend.inboxes.create({ emailAddress: 'help@not-a-domain-of-ours.example' });
    expect(elsewhere.error).toMatchObject({ statusCode: 422 });
    const listed = await resend.inboxes.list();
    expect(listed.data?.data.map((i) => i.id)).toContain(inboxId);
    const updated = await resend.inboxes.update(inboxId, { name: 'Customer support' });
    expect(updated.error).toBeNull();
    expect((await resend.inboxes.get(inboxId)).data?.name).toBe('Customer support');
    expect((await resend.inboxes.get('01890a5d-ac96-774b-bcce-b302099a8057')).error).toMatchObject({ statusCode: 404 });
  });

  it('keeps agent settings, and events carry them', async () => {
    const before = await resend.inboxes.agent.get({ inboxId });
    expect(before.data).toEqual({ object: 'inbox_agent', instructions: null, tone: null, actions: [] });
    const set = await resend.inboxes.agent.update({
      inboxId,
      instructions: 'Be kind',
      tone: 'concise_casual',
      actions: ['draft_reply'],
    });
    expect(set.error).toBeNull();
    expect((await resend.inboxes.agent.get({ emailAddress: address })).data).toMatchObject({
      instructions: 'Be kind',
      tone: 'concise_casual',
      actions: ['draft_reply'],
    });
    const bad = await api.patch(`/inboxes/${inboxId}/agent`, { tone: 'shouty' }, { key });
    expect(bad.status).toBe(422);
  });
});

describe('a conversation over SMTP', () => {
  const subject = `Where is my order ${Date.now()}`;
  let first: ReturnType<typeof mail>;
  let threadId: string;
  let firstEmailId: string;

  beforeAll(async () => {
    first = mail(subject);
    await deliverMail('jane@outside.example', [address], first.lines);
    const [thread] = await threadsWith(subject);
    threadId = thread.id;
  });

  it('becomes a thread, unread, with the message and a webhook carrying the agent settings', async () => {
    const list = await resend.inboxes.threads.emails.list({ inboxId, threadId });
    expect(list.data?.data).toHaveLength(1);
    const [message] = list.data!.data;
    firstEmailId = message.id;
    expect(message).toMatchObject({
      direction: 'inbound',
      from: 'Jane Customer <jane@outside.example>',
      subject,
      read: false,
    });
    expect(message.text).toContain(`Body of ${subject}`);
    expect(message.message_id).toContain('outside.example');
    const thread = await resend.inboxes.threads.get({ inboxId, threadId });
    expect(thread.data).toMatchObject({ object: 'inbox_thread', subject, folder: 'inbox', read: false });
    const received = await waitFor(
      async () =>
        receiver.receipts.filter(
          (r) => r.json?.type === 'inbox.message.received' && r.json.data.object.thread_id === threadId,
        ),
      (r) => r.length > 0,
    );
    expect(received[0].json.data.object.agent).toMatchObject({ instructions: 'Be kind' });
  });

  it('answers a reply through the API with threading headers, and the outside answer lands in the same thread', async () => {
    const reply = await resend.inboxes.threads.emails.reply({
      inboxId,
      threadId,
      emailId: firstEmailId,
      text: 'It ships today.',
    });
    expect(reply.error).toBeNull();
    const outbound = await waitFor(() => viewerMail(`Re: ${subject}`), Boolean, 60_000);
    expect(outbound!.destination.to).toEqual(['jane@outside.example']);
    expect(header(outbound!, 'In-Reply-To')).toBe(first.messageId);
    expect(header(outbound!, 'References')).toContain(first.messageId);
    const sentEmail = await waitFor(
      () => api.get(`/emails/${reply.data!.id}`, { key }),
      (r) => !!r.body.message_id,
      60_000,
    );
    // the customer answers the reply, naming it only by In-Reply-To (no References, a changed subject)
    const answer = mail('thanks!', [`In-Reply-To: ${sentEmail.body.message_id}`]);
    await deliverMail('jane@outside.example', [address], answer.lines);
    const messages = await waitFor(
      async () => (await resend.inboxes.threads.emails.list({ inboxId, threadId })).data?.data ?? [],
      (list) => list.length === 3,
      30_000,
    );
    expect(messages.map((m) => m.direction)).toEqual(['inbound', 'outbound', 'inbound']);
    expect(messages[1]).toMatchObject({
      id: reply.data!.id,
      subject: `Re: ${subject}`,
      text: 'It ships today.',
      read: true,
    });
    expect(messages[2].subject).toBe('thanks!');
  });

  it('threads an answer without headers by subject and sender, but never another sender with the same subject', async () => {
    await deliverMail('jane@outside.example', [address], mail(`RE: ${subject}`).lines);
    await deliverMail('bob@else.example', [address], mail(subject, [], 'Bob <bob@else.example>').lines);
    const threads = await waitFor(
      () => threadsWith(subject),
      (t) => t.length === 2,
      30_000,
    );
    const mine = threads.find((t) => t.id === threadId)!;
    await waitFor(
      async () => (await resend.inboxes.threads.emails.list({ inboxId, threadId })).data?.data.length,
      (n) => n === 4,
      30_000,
    );
    expect(mine.email_count).toBe(4);
  });

  /** The threads of a matter (its subject with or without "Re: "), once they hold `emails` messages between them. */
  const threadsOf = (matter: string, emails: number) =>
    waitFor(
      async () =>
        (
          (await resend.inboxes.threads.list({ inboxId, folders: ['inbox', 'sent', 'archive', 'spam', 'trash'] })).data
            ?.data ?? []
        ).filter((t) => t.subject === matter || t.subject === `Re: ${matter}`),
      (threads) => threads.reduce((n, t) => n + t.email_count, 0) === emails,
      60_000,
    );

  it('files a reply that overtook its original into one thread with it when the original arrives', async () => {
    const matter = `Refund ${Date.now()}`;
    const original = mail(matter);
    // the reply reaches the inbox first (the original was delayed on its way): a thread of its own for now
    await deliverMail(
      'jane@outside.example',
      [address],
      mail(`Re: ${matter}`, [`In-Reply-To: ${original.messageId}`]).lines,
    );
    const [early] = await threadsOf(matter, 1);
    // the original names no other message and has no reply prefix: only its own Message-ID, which the reply named, finds the thread
    await deliverMail('jane@outside.example', [address], original.lines);
    const threads = await threadsOf(matter, 2);
    expect(threads.map((t) => t.id)).toEqual([early.id]);
    const messages = (await resend.inboxes.threads.emails.list({ inboxId, threadId: early.id })).data!.data;
    expect(messages.map((m) => m.subject).sort()).toEqual([matter, `Re: ${matter}`].sort());
  });

  it('files replies delivered at once, ahead of their original, into one thread (the inbound worker files 5 at a time)', async () => {
    const matter = `Outage ${Date.now()}`;
    const original = mail(matter);
    const replies = Array.from({ length: 9 }, (_, i) =>
      mail(
        `Re: ${matter}`,
        [`In-Reply-To: ${original.messageId}`, `References: ${original.messageId}`],
        `P${i} <p${i}@outside.example>`,
      ),
    );
    // the replies together, ahead of their original: each is filed at the moment the others are, none finds another's thread
    // by its keys before filing, and each names the same unseen original
    await Promise.all(replies.map((m, i) => deliverMail(`p${i}@outside.example`, [address], m.lines)));
    await deliverMail('jane@outside.example', [address], original.lines);
    const threads = await threadsOf(matter, 10);
    expect(threads).toHaveLength(1);
    const messages = (await resend.inboxes.threads.emails.list({ inboxId, threadId: threads[0].id })).data!.data;
    expect(new Set(messages.map((m) => m.message_id))).toEqual(new Set([original, ...replies].map((m) => m.messageId)));
  });

  it('forwards with the original attachments', async () => {
    const withFile = mail(`Invoice ${Date.now()}`, [
      'MIME-Version: 1.0',
      'Content-Type: multipart/mixed; boundary="b"',
    ]);
    withFile.lines.splice(
      withFile.lines.length - 2,
      2,
      '',
      '--b',
      'Content-Type: text/plain',
      '',
      'See attached',
      '--b',
      'Content-Type: application/pdf; name="inv.pdf"',
      'Content-Disposition: attachment; filename="inv.pdf"',
      'Content-Transfer-Encoding: base64',
      '',
      Buffer.from('%PDF-1.4 hello').toString('base64'),
      '--b--',
    );
    const invoiceSubject = withFile.lines.find((l) => l.startsWith('Subject: '))!.slice(9);
    await deliverMail('jane@outside.example', [address], withFile.lines);
    const [thread] = await threadsWith(invoiceSubject);
    expect(thread.has_attachment).toBe(true);
    const [original] = (await resend.inboxes.threads.emails.list({ inboxId, threadId: thread.id })).data!.data;
    expect(original.attachments).toMatchObject([{ filename: 'inv.pdf' }]);
    const forwarded = await resend.inboxes.threads.emails.forward({
      inboxId,
      threadId: thread.id,
      emailId: original.id,
      to: 'accounts@partner.example',
      text: 'FYI',
    });
    expect(forwarded.error).toBeNull();
    const out = await waitFor(() => viewerMail(`Fwd: ${invoiceSubject}`), Boolean, 60_000);
    expect(out!.attachments.map((a) => a.filename)).toEqual(['inv.pdf']);
    expect(out!.body.text).toContain('Forwarded message');
  });

  it('refuses threading headers and too many recipients', async () => {
    const custom = await resend.inboxes.threads.emails.reply({
      inboxId,
      threadId,
      emailId: firstEmailId,
      text: 'x',
      headers: { 'in-reply-to': '<x@y>' },
    });
    expect(custom.error).toMatchObject({ statusCode: 422 });
    const many = await resend.inboxes.threads.emails.reply({
      inboxId,
      threadId,
      emailId: firstEmailId,
      text: 'x',
      bcc: Array.from({ length: 50 }, (_, i) => `b${i}@x.example`),
    });
    expect(many.error).toMatchObject({ statusCode: 422 });
    const missing = await resend.inboxes.threads.emails.reply({
      inboxId,
      threadId,
      emailId: '01890a5d-ac96-774b-bcce-b302099a8057',
      text: 'x',
    });
    expect(missing.error).toMatchObject({ statusCode: 404 });
    // a file SES would refuse, and an empty one
    const exe = await resend.inboxes.threads.emails.reply({
      inboxId,
      threadId,
      emailId: firstEmailId,
      text: 'x',
      attachments: [{ filename: 'setup.exe', content: Buffer.from('MZ').toString('base64') }],
    });
    expect(exe.error).toMatchObject({ statusCode: 422 });
    const draftExe = await api.post(
      `/inboxes/${inboxId}/drafts`,
      { to: 'a@outside.example', attachments: [{ filename: 'run.BAT', content: Buffer.from('x').toString('base64') }] },
      { key },
    );
    expect(draftExe.status).toBe(422);
    expect(draftExe.body.errors).toEqual([
      expect.objectContaining({ code: 'blocked_attachment', path: 'attachments.0' }),
    ]);
    const empty = await api.post(
      `/inboxes/${inboxId}/drafts`,
      { to: 'a@outside.example', attachments: [{ filename: 'e.txt', content: '' }] },
      { key },
    );
    expect(empty.status).toBe(422);
  });

  it('is read, moved, labelled and found by folder, label and read state', async () => {
    const label = await resend.inboxes.labels.create({ inboxId, name: `Orders ${counter++}`, color: '#E93D82' });
    expect(label.error).toBeNull();
    const labelId = label.data!.id;
    expect(
      (await resend.inboxes.labels.create({ inboxId, name: label.data!.id ? `orders ${counter - 1}` : 'x' })).error,
    ).toMatchObject({ statusCode: 409 });
    const added = await resend.inboxes.threads.labels.add({ inboxId, threadId, labels: [labelId] });
    expect(added.data?.data).toMatchObject([{ id: labelId, color: '#E93D82' }]);
    expect(
      (await resend.inboxes.threads.labels.add({ inboxId, threadId, labels: ['01890a5d-ac96-774b-bcce-b302099a8057'] }))
        .error,
    ).toMatchObject({ statusCode: 422 });
    const byLabel = await resend.inboxes.threads.list({ inboxId, labels: [labelId] });
    expect(byLabel.data?.data.map((t) => t.id)).toEqual([threadId]);
    const unreadBefore = (await resend.inboxes.get(inboxId)).data!.unread;
    const read = await resend.inboxes.threads.update({ inboxId, threadId, read: true });
    expect(read.data).toMatchObject({ read: true, labels: [{ id: labelId }] });
    expect((await resend.inboxes.get(inboxId)).data!.unread).toBe(unreadBefore - 1);
    expect((await resend.inboxes.threads.list({ inboxId, read: false })).data?.data.map((t) => t.id)).not.toContain(
      threadId,
    );
    const archived = await resend.inboxes.threads.update({ inboxId, threadId, folder: 'archive' });
    expect(archived.data?.folder).toBe('archive');
    expect(
      (await resend.inboxes.threads.list({ inboxId, folders: ['inbox'] })).data?.data.map((t) => t.id),
    ).not.toContain(threadId);
    expect(
      (await resend.inboxes.threads.list({ inboxId, folders: ['archive'] })).data?.data.map((t) => t.id),
    ).toContain(threadId);
    expect((await api.patch(`/inboxes/${inboxId}/threads/${threadId}`, { folder: 'sent' }, { key })).status).toBe(422);
    const set = await resend.inboxes.threads.labels.set({ inboxId, threadId, labels: [] });
    expect(set.data?.data).toEqual([]);
    expect((await resend.inboxes.labels.update({ inboxId, labelId, color: '#000000' })).error).toBeNull();
    expect(
      (await resend.inboxes.labels.update({ inboxId, labelId, name: `Orders renamed ${counter++}` })).error,
    ).toBeNull();
    expect((await resend.inboxes.labels.list({ inboxId })).data?.data.find((l) => l.id === labelId)?.color).toBe(
      '#000000',
    );
    expect((await resend.inboxes.threads.labels.remove({ inboxId, threadId, labelId })).data?.data).toEqual([]);
    expect((await resend.inboxes.labels.remove({ inboxId, labelId })).data).toMatchObject({ deleted: true });
  });

  it('keeps drafts: one reply draft per email, sent into the thread', async () => {
    const created = await resend.inboxes.drafts.create({
      inboxId,
      threadId,
      replyToEmailId: firstEmailId,
      text: 'Draft answer',
    });
    expect(created.error).toBeNull();
    const again = await resend.inboxes.drafts.create({
      inboxId,
      threadId,
      replyToEmailId: firstEmailId,
      text: 'Another',
    });
    expect(again.data?.id).toBe(created.data!.id);
    expect(
      (await resend.inboxes.threads.list({ inboxId, folders: ['archive'] })).data?.data.find((t) => t.id === threadId)
        ?.has_draft,
    ).toBe(true);
    expect((await resend.inboxes.get(inboxId)).data?.drafts).toBe(1);
    const updated = await resend.inboxes.drafts.update({
      inboxId,
      draftId: created.data!.id,
      text: 'Final answer',
      attachments: [{ filename: 'a.txt', content: Buffer.from('hello').toString('base64'), contentType: 'text/plain' }],
    });
    expect(updated.error).toBeNull();
    const got = await resend.inboxes.drafts.get({ inboxId, draftId: created.data!.id });
    expect(got.data).toMatchObject({
      type: 'reply',
      text: 'Final answer',
      thread_id: threadId,
      attachments: [{ filename: 'a.txt', size: 5 }],
    });
    expect((await resend.inboxes.drafts.list({ inboxId })).data?.data.map((d) => d.id)).toContain(created.data!.id);
    const sent = await resend.inboxes.drafts.send({ inboxId, draftId: created.data!.id });
    expect(sent.error).toBeNull();
    expect((await resend.inboxes.drafts.get({ inboxId, draftId: created.data!.id })).error).toMatchObject({
      statusCode: 404,
    });
    expect((await resend.inboxes.get(inboxId)).data?.drafts).toBe(0);
    const messages = (await resend.inboxes.threads.emails.list({ inboxId, threadId })).data!.data;
    expect(messages.at(-1)).toMatchObject({ id: sent.data!.id, direction: 'outbound', text: 'Final answer' });
    const standalone = await resend.inboxes.drafts.create({
      inboxId,
      attachments: [{ filename: 'b.txt', content: Buffer.from('bye').toString('base64'), contentType: 'text/plain' }],
      to: 'new@outside.example',
      subject: `Hello ${Date.now()}`,
      html: '<p>hi</p>',
    });
    const removed = await resend.inboxes.drafts.remove({ inboxId, draftId: standalone.data!.id });
    expect(removed.data).toMatchObject({ deleted: true });
    // a standalone draft sent starts a conversation in `sent`
    const outreach = await resend.inboxes.drafts.create({
      inboxId,
      to: 'prospect@outside.example',
      subject: `Introducing ${OUTREACH_WORD}`,
      html: `<p>Meet the ${OUTREACH_WORD} plan</p>`,
    });
    const sentOut = await resend.inboxes.drafts.send({ inboxId, draftId: outreach.data!.id });
    expect(sentOut.error).toBeNull();
    const thread = (
      await resend.inboxes.threads.get({
        inboxId,
        threadId: (sentOut.data as unknown as { thread_id: string }).thread_id,
      })
    ).data;
    expect(thread).toMatchObject({ subject: `Introducing ${OUTREACH_WORD}`, folder: 'sent', read: true });
    expect((await resend.inboxes.drafts.create({ inboxId, threadId } as never)).error).toMatchObject({
      statusCode: 422,
    });
  });

  it('reads a message it sent, and forwards it (its body from the email)', async () => {
    const messages = (await resend.inboxes.threads.emails.list({ inboxId, threadId })).data!.data;
    const outbound = messages.find((m) => m.direction === 'outbound')!;
    const got = await resend.inboxes.threads.emails.get({ inboxId, threadId, emailId: outbound.id });
    expect(got.data).toMatchObject({ id: outbound.id, direction: 'outbound', text: 'It ships today.' });
    expect(got.data!.message_id).toMatch(/^<.+@.+>$/); // SES's, once it took the email
    const forwarded = await resend.inboxes.threads.emails.forward({
      inboxId,
      threadId,
      emailId: outbound.id,
      to: 'team@partner.example',
    });
    expect(forwarded.error).toBeNull();
    const out = await waitFor(() => viewerMail(`Fwd: Re: ${subject}`), Boolean, 60_000);
    expect(out!.body.text).toContain('It ships today.');
  });

  it('keeps a body too large for its item (in the bucket), answers it whole and finds it by a word of it', async () => {
    const deep = `qxdeep${Date.now().toString(36)}`;
    const big = `${deep} ${'All work and no play makes a long message. '.repeat(8000)}END`; // ~350 KB
    const long = mail(`A long one ${Date.now()}`, [`In-Reply-To: ${first.messageId}`]);
    long.lines[long.lines.length - 1] = big;
    await deliverMail('jane@outside.example', [address], long.lines);
    const subjectOfLong = long.lines.find((l) => l.startsWith('Subject: '))!.slice(9);
    const messages = await waitFor(
      async () => (await resend.inboxes.threads.emails.list({ inboxId, threadId })).data?.data ?? [],
      (list) => list.some((m) => m.subject === subjectOfLong),
      30_000,
    );
    const message = messages.find((m) => m.subject === subjectOfLong)!;
    expect(message.text?.trim().endsWith('END')).toBe(true);
    expect((message as unknown as { truncated: boolean }).truncated).toBe(false);
    const got = await resend.inboxes.threads.emails.get({ inboxId, threadId, emailId: message.id });
    expect(got.data!.text!.length).toBe(message.text!.length);
    // the index worker read the body from the bucket too: its first word is found (the index takes a body's first 64 KB)
    const found = await waitFor(
      async () => (await resend.inboxes.threads.search({ inboxId, query: deep })).data?.data ?? [],
      (list) => list.length === 1,
      30_000,
    );
    expect(found[0]).toMatchObject({ id: threadId, matched_email_id: message.id });
  });

  it('is deleted, and its messages with it; an unread one leaves the unread count', async () => {
    const bobs = (await threadsWith(subject)).find((t) => t.id !== threadId)!;
    expect(bobs.read).toBe(false);
    const unread = (await resend.inboxes.get(inboxId)).data!.unread;
    expect((await resend.inboxes.threads.remove({ inboxId, threadId: bobs.id })).error).toBeNull();
    expect((await resend.inboxes.get(inboxId)).data!.unread).toBe(unread - 1);
    const removed = await resend.inboxes.threads.remove({ inboxId, threadId });
    expect(removed.data).toMatchObject({ object: 'inbox_thread', id: threadId, deleted: true });
    expect((await resend.inboxes.threads.get({ inboxId, threadId })).error).toMatchObject({ statusCode: 404 });
    expect((await resend.inboxes.threads.emails.list({ inboxId, threadId })).error).toMatchObject({ statusCode: 404 });
  });
});

describe('search', () => {
  const word = `quokka${Date.now().toString(36)}`;
  let threadId: string;
  let emailId: string;

  beforeAll(async () => {
    await deliverMail(
      'jane@outside.example',
      [address],
      mail(`Travel plans ${word}`, [], 'Jane Customer <jane@outside.example>').lines.map((l) =>
        l.startsWith('Body of') ? `We saw a ${word} at the caf\u00e9 near the harbour` : l,
      ),
    );
    await deliverMail(
      'bob@else.example',
      [address],
      mail('Unrelated', [], 'Bob <bob@else.example>').lines.map((l) =>
        l.startsWith('Body of') ? `No ${word}s here, only the harbour master` : l,
      ),
    );
  });

  it('finds a message by a word of its body within seconds, with the thread, the matched email and highlights', async () => {
    const found = await waitFor(
      async () => (await resend.inboxes.threads.search({ inboxId, query: `${word} harbour` })).data?.data ?? [],
      (list) => list.length >= 1,
      30_000,
    );
    const hit = found.find((t) => t.subject === `Travel plans ${word}`)!;
    expect(hit).toBeDefined();
    threadId = hit.id;
    emailId = hit.matched_email_id!;
    expect((hit as unknown as { highlights: string[] }).highlights.join(' ')).toContain(`<mark>${word}</mark>`);
    const [message] = (await resend.inboxes.threads.emails.list({ inboxId, threadId })).data!.data;
    expect(message.id).toBe(emailId);
  });

  /** Messages of the thread that no worker has indexed (written as filing writes them, without its event), one per word. */
  async function unindexedMessages(words: string[]) {
    const keys = await import('../../shared/platform/db/keys');
    const { transact, put } = await import('../../shared/platform/db/table');
    const { newId } = await import('../../shared/platform/ids');
    const ids = words.map(() => newId());
    await transact(
      words.flatMap((word, i) => [
        put({ ...keys.receivedEmail(projectId, ids[i]), type: 'received_email', id: ids[i], text: `about ${word}` }),
        put({
          ...keys.inboxMessage(projectId, inboxId, threadId, ids[i]),
          type: 'inbox_message',
          id: ids[i],
          thread_id: threadId,
          inbox_id: inboxId,
          direction: 'inbound',
          from: 'jane@outside.example',
          to: [address],
          subject: 'unindexed',
          received_at: new Date().toISOString(),
        }),
      ]),
    );
    return ids.map((id) => ({ project_id: projectId, inbox_id: inboxId, thread_id: threadId, message_id: id }));
  }

  it('keeps both batches when two index updates of one inbox race', async () => {
    // added by two updates at once: the second to move the version reads the first's index and adds again
    const { indexMessages } = await import('../../shared/inboxes/search');
    const words = [`racea${Date.now().toString(36)}`, `raceb${Date.now().toString(36)}`];
    const messages = await unindexedMessages(words);
    const ids = messages.map((m) => m.message_id);
    await Promise.all(messages.map((message) => indexMessages([message])));
    for (const [i, word] of words.entries()) {
      const found = (await resend.inboxes.threads.search({ inboxId, query: word })).data?.data ?? [];
      expect(found.map((t) => t.matched_email_id)).toEqual([ids[i]]);
    }
    // the index worker's copy is now behind: the next mail makes it read the newest object (as a cold worker does)
    const later = `afterrace${Date.now().toString(36)}`;
    await deliverMail('jane@outside.example', [address], mail(`After the race ${later}`).lines);
    await waitFor(
      async () => (await resend.inboxes.threads.search({ inboxId, query: later })).data?.data ?? [],
      (list) => list.length === 1,
      30_000,
    );
    // and what the racing updates added is still there: the worker added to the newest index, not its old copy
    for (const word of words)
      expect(((await resend.inboxes.threads.search({ inboxId, query: word })).data?.data ?? []).length).toBe(1);
  });

  it('finds messages in the base and the open part of the index once the open part is merged, a message indexed twice once', async () => {
    const { indexMessages } = await import('../../shared/inboxes/search');
    const { getItem } = await import('../../shared/platform/db/table');
    const keys = await import('../../shared/platform/db/keys');
    const words = [0, 1, 2, 3, 4].map((i) => `segment${i}x${Date.now().toString(36)}`);
    const messages = await unindexedMessages(words);
    // merged every 2 messages here (the service merges at SEGMENT_MESSAGES): twice or more
    const before = await getItem(keys.inbox(projectId, inboxId));
    for (const message of messages) await indexMessages([message], { segmentMessages: 2 });
    await indexMessages([messages[0]], { segmentMessages: 2 }); // delivered again, after it was merged into the base
    const inbox = await getItem(keys.inbox(projectId, inboxId));
    expect(inbox?.index_base).toEqual(expect.any(String));
    expect(inbox?.index_base).not.toBe(before?.index_base);
    for (const [i, word] of words.entries()) {
      const found = (await resend.inboxes.threads.search({ inboxId, query: word })).data?.data ?? [];
      expect(found.map((t) => t.matched_email_id)).toEqual([messages[i].message_id]);
    }
    // the worker adds the next mail to the open part; the base still answers
    const later = `aftermerge${Date.now().toString(36)}`;
    await deliverMail('jane@outside.example', [address], mail(`After the merge ${later}`).lines);
    await waitFor(
      async () => (await resend.inboxes.threads.search({ inboxId, query: later })).data?.data ?? [],
      (list) => list.length === 1,
      30_000,
    );
    expect(((await resend.inboxes.threads.search({ inboxId, query: words[1] })).data?.data ?? []).length).toBe(1);
  });

  it('takes phrases, exclusions and the filters', async () => {
    const ids = async (options: Record<string, unknown>) =>
      ((await resend.inboxes.threads.search({ inboxId, ...options } as never)).data?.data ?? []).map((t) => t.id);
    await waitFor(
      () => ids({ query: 'harbour master' }),
      (list) => list.length === 1,
      30_000,
    );
    expect(await ids({ query: '"near the harbour"' })).toEqual([threadId]);
    expect(await ids({ query: '"the harbour near"' })).toEqual([]);
    expect(await ids({ query: `harbour -master` })).toEqual([threadId]);
    expect(await ids({ query: 'cafe harbour' })).toEqual([threadId]); // accents folded
    expect(await ids({ query: 'harbour', from: ['jane@outside'] })).toEqual([threadId]);
    expect(await ids({ query: 'harbour', from: ['nobody@x'] })).toEqual([]);
    expect(await ids({ query: 'harbour', hasAttachment: true })).toEqual([]);
    expect(await ids({ query: 'harbour', startDate: '2000-01-01', endDate: '2000-01-02' })).toEqual([]);
    expect(await ids({ query: 'harbour', folders: ['trash'] })).toEqual([]);
    // a message the inbox sent is found too (its body is its email's content)
    const sentFound = await waitFor(
      () => ids({ query: OUTREACH_WORD, folders: ['sent'] }),
      (list) => list.length === 1,
      30_000,
    );
    expect(sentFound).toHaveLength(1);
    const bad = await api.get(`/inboxes/${inboxId}/threads/search?start_date=yesterday`, { key });
    expect(bad.status).toBe(422);
  });
});

describe('in test mode', () => {
  it("keeps a sandbox inbox of the project's test mode: a test send to it becomes a thread, and its reply is simulated", async () => {
    const testKey = (await api.post('/api-keys', { name: 'inbox sandbox', mode: 'test' }, { key })).body
      .token as string;
    const sandbox = new Resend(testKey, { baseUrl: baseUrl() });
    const testDomain = `sandbox-${Date.now().toString(36)}.example.com`;
    const created = await api.post(
      '/domains',
      { name: testDomain, capabilities: { receiving: 'enabled' } },
      { key: testKey },
    );
    await waitFor(
      () => api.post(`/domains/${created.body.id}/verify`, undefined, { key: testKey }),
      (r) => r.body.status === 'verified',
    );
    const inbox = (await sandbox.inboxes.create({ emailAddress: `help@${testDomain}` })).data!;
    const subject = `Sandbox question ${Date.now()}`;
    const sent = await api.post(
      '/emails',
      { from: `ci@${testDomain}`, to: `help@${testDomain}`, subject, text: 'hello sandbox' },
      { key: testKey },
    );
    expect(sent.status).toBe(200);
    const [thread] = await waitFor(
      async () => (await sandbox.inboxes.threads.list({ inboxId: inbox.id })).data?.data ?? [],
      (list) => list.some((t) => t.subject === subject),
      40_000,
    );
    const [message] = (await sandbox.inboxes.threads.emails.list({ inboxId: inbox.id, threadId: thread.id })).data!
      .data;
    const reply = await sandbox.inboxes.threads.emails.reply({
      inboxId: inbox.id,
      threadId: thread.id,
      emailId: message.id,
      text: 'answered in the sandbox',
    });
    expect(reply.error).toBeNull();
    // accepted as a test send (the send-test queue), and in the thread as sent
    expect((await api.get(`/emails/${reply.data!.id}`, { key: testKey })).body.object).toBe('email');
    const conversation = (await sandbox.inboxes.threads.emails.list({ inboxId: inbox.id, threadId: thread.id })).data!
      .data;
    expect(conversation.map((m) => m.direction)).toEqual(['inbound', 'outbound']);
    // the live project sees none of it
    expect((await resend.inboxes.get(inbox.id)).error).toMatchObject({ statusCode: 404 });
  });
});

describe('a forwarding address', () => {
  it('takes mail forwarded from an existing mailbox into the inbox, as if sent to its address', async () => {
    const created = await resend.inboxes.create({ emailAddress: `billing@${domain}`, forwarding: true });
    expect(created.error).toBeNull();
    const inbox = (await resend.inboxes.get(created.data!.id)).data!;
    expect(inbox.receiving_address).toMatch(/^in-[0-9a-f]{20}@inboxes\.localhost$/);
    // the old mailbox forwards: the envelope names the forwarding address, the headers still the original
    const subject = `Forwarded in ${Date.now()}`;
    await deliverMail(
      'jane@outside.example',
      [inbox.receiving_address!],
      [
        'From: Jane Customer <jane@outside.example>',
        'To: billing@old-provider.example',
        `Subject: ${subject}`,
        '',
        'Please find my question below',
      ],
    );
    const threads = await waitFor(
      async () => (await resend.inboxes.threads.list({ inboxId: inbox.id })).data?.data ?? [],
      (list) => list.some((t) => t.subject === subject),
      30_000,
    );
    expect(threads).toHaveLength(1);
    // an address at the forwarding domain that names no inbox takes nothing
    await deliverMail(
      'jane@outside.example',
      ['in-00000000000000000000@inboxes.localhost'],
      ['Subject: nobody', '', 'x'],
    );
    expect((await resend.inboxes.remove(inbox.id)).error).toBeNull();
  });
});

describe('deleting an inbox', () => {
  it('makes it and its address 404, the address free again, and its threads and labels go after', async () => {
    const other = await resend.inboxes.create({ emailAddress: `sales@${domain}` });
    const subject = `For sales ${Date.now()}`;
    await deliverMail(
      'jane@outside.example',
      [`sales@${domain}`],
      [`From: jane@outside.example`, `To: sales@${domain}`, `Subject: ${subject}`, '', 'hi'],
    );
    await waitFor(
      async () => (await resend.inboxes.threads.list({ inboxId: other.data!.id })).data?.data ?? [],
      (threads) => threads.length === 1,
      30_000,
    );
    await resend.inboxes.labels.create({ inboxId: other.data!.id, name: 'Leads' });
    const partition = async () => {
      const keys = await import('../../shared/platform/db/keys');
      const { partitionKeys } = await import('../../shared/platform/db/table');
      const found = [];
      for (const pk of keys.inboxPartitions(projectId, other.data!.id))
        for await (const page of partitionKeys(pk)) found.push(...page);
      return found;
    };
    expect((await partition()).length).toBeGreaterThan(3); // thread, message, its keys, the label
    expect((await resend.inboxes.remove(`sales@${domain}`)).data).toMatchObject({
      object: 'inbox',
      id: other.data!.id,
      deleted: true,
    });
    expect((await resend.inboxes.get(other.data!.id)).error).toMatchObject({ statusCode: 404 });
    expect((await resend.inboxes.create({ emailAddress: `sales@${domain}` })).error).toBeNull();
    await waitFor(partition, (left) => left.length === 0, 30_000); // the collection-cleanup worker, from the stream
  });
});
