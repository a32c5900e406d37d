/**
 * Receiving over real SMTP against the local runtime: messages sent to its inbound SMTP server
 * (LOCAL_SMTP_PORT, a free port in the tests) go through the same path as on AWS (raw message in
 * the bucket stand-in, SES's notification on the inbound queue, the inbound worker) and show up
 * in GET /emails/receiving, with signed `email.received` and `email.stored` webhooks.
 * The suite uses a project of its own, so other suites' events never mix with its webhooks.
 */
import { existsSync, readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { join } from 'node:path';
import { Resend } from 'resend';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { api, baseUrl } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();
const dataDir = process.env.TEST_DATA_DIR!;
const runtime = JSON.parse(readFileSync(join(dataDir, 'runtime.json'), 'utf8')) as {
  smtpPort: number;
  inboundBucket: string;
};
const rawPath = (sesMessageId: string) => join(dataDir, 's3', runtime.inboundBucket, 'raw', sesMessageId);

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const MISSING = '01890a5d-ac96-774b-bcce-b302099a8057';
let counter = 0;
const uniqueDomain = (label: string) => `${label}-${Date.now().toString(36)}-${counter++}.example.com`;

/** A minimal SMTP client: one session per call, every reply checked. */
class Smtp {
  private buffer = '';
  private waiting?: (line: string) => void;
  private constructor(private readonly socket: Socket) {
    socket.setEncoding('latin1');
    socket.on('data', (chunk: string) => {
      this.buffer += chunk;
      this.flush();
    });
  }

  static async open(): Promise<Smtp> {
    const socket = connect(runtime.smtpPort, '127.0.0.1');
    await new Promise((resolve, reject) => socket.once('connect', resolve).once('error', reject));
    const smtp = new Smtp(socket);
    await smtp.expect(220);
    await smtp.command('EHLO test.local', 250);
    return smtp;
  }

  private flush() {
    // a complete reply: its last line has a space after the code
    const match = /^(?:\d{3}-.*\r\n)*\d{3} .*\r\n/.exec(this.buffer);
    if (match && this.waiting) {
      this.buffer = this.buffer.slice(match[0].length);
      const resolve = this.waiting;
      this.waiting = undefined;
      resolve(match[0]);
    }
  }

  private reply(): Promise<string> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.flush();
    });
  }

  async expect(code: number): Promise<string> {
    const reply = await this.reply();
    if (!reply.startsWith(String(code))) throw new Error(`expected ${code}, got ${reply.trim()}`);
    return reply;
  }

  async command(line: string, code: number): Promise<string> {
    this.socket.write(`${line}\r\n`);
    return this.expect(code);
  }

  /** Sends one message; returns the SES-style message id from the 250 reply. */
  async send(from: string, to: string[], message: Buffer): Promise<string> {
    await this.command(`MAIL FROM:<${from}>`, 250);
    for (const recipient of to) await this.command(`RCPT TO:<${recipient}>`, 250);
    await this.command('DATA', 354);
    // dot-stuffing (RFC 5321 4.5.2), then the terminator
    const stuffed = Buffer.from(message.toString('latin1').replace(/(^|\r\n)\./g, '$1..'), 'latin1');
    this.socket.write(stuffed);
    const reply = await this.command(message.subarray(-2).toString() === '\r\n' ? '.' : '\r\n.', 250);
    return /queued as (\S+)/.exec(reply)![1];
  }

  async close(): Promise<void> {
    await this.command('QUIT', 221).catch(() => undefined);
    this.socket.destroy();
  }
}

async function sendMail(to: string[], message: Buffer, from = 'sender@outside.example'): Promise<string> {
  const smtp = await Smtp.open();
  try {
    return await smtp.send(from, to, message);
  } finally {
    await smtp.close();
  }
}

const crlf = (lines: string[]) => Buffer.from(`${lines.join('\r\n')}\r\n`, 'latin1');

/** A message with multipart/alternative bodies and a PDF attachment. */
function messageWithAttachment(to: string, subject: string, pdf: Buffer): Buffer {
  return crlf([
    'From: Jane Sender <jane@outside.example>',
    `To: ${to}`,
    'Cc: copy@outside.example',
    `Subject: ${subject}`,
    `Message-ID: <${subject.replace(/\W/g, '')}@outside.example>`,
    'MIME-Version: 1.0',
    'Content-Type: multipart/mixed; boundary="mixed"',
    '',
    '--mixed',
    'Content-Type: multipart/alternative; boundary="alt"',
    '',
    '--alt',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: quoted-printable',
    '',
    'Hello from outside, caf=C3=A9.',
    '.a line that starts with a dot',
    '--alt',
    'Content-Type: text/html; charset=utf-8',
    '',
    '<p>Hello from outside</p>',
    '--alt--',
    '--mixed',
    'Content-Type: application/pdf; name="invoice.pdf"',
    'Content-Disposition: attachment; filename="invoice.pdf"',
    'Content-Transfer-Encoding: base64',
    '',
    ...(pdf.toString('base64').match(/.{1,76}/g) ?? []),
    '--mixed--',
  ]);
}

interface Receipt {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
}

/** A webhook endpoint on 127.0.0.1 that records what it gets. */
async function startReceiver(): Promise<{ url: string; receipts: Receipt[]; server: Server }> {
  const receipts: Receipt[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      receipts.push({ headers: req.headers, body, json: JSON.parse(body) });
      res.writeHead(200).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, receipts, server };
}

let key: string;
let domain: { id: string; name: string };
let plainDomain: { id: string; name: string };
let receiver: Awaited<ReturnType<typeof startReceiver>>;
let signingSecret: string;
const as = () => ({ key });
/** The local SES verifies a domain about a second after it is created (never one under `.invalid`). */
const verified = (domainId: string) =>
  waitFor(
    () => api.post(`/domains/${domainId}/verify`, undefined, as()),
    (r) => r.body.status === 'verified',
    10_000,
    200,
  );

beforeAll(async () => {
  ({ key } = await createOtherProject());
  const created = await api.post(
    '/domains',
    { name: uniqueDomain('inbound'), capabilities: { receiving: 'enabled' } },
    as(),
  );
  expect(created.status).toBe(201);
  domain = created.body;
  await verified(domain.id); // mail is received only for verified domains
  plainDomain = (await api.post('/domains', { name: uniqueDomain('no-inbound') }, as())).body;
  receiver = await startReceiver();
  const hook = await api.post(
    '/webhooks',
    { endpoint: receiver.url, events: ['email.received', 'email.stored'] },
    as(),
  );
  expect(hook.status).toBe(201);
  signingSecret = hook.body.signing_secret;
});
afterAll(async () => {
  await new Promise((resolve) => {
    receiver.server.close(resolve);
    receiver.server.closeAllConnections();
  });
});

const listReceived = async () => (await api.get('/emails/receiving?limit=100', as())).body.data as any[];
const receivedWithSubject = (subject: string) =>
  waitFor(listReceived, (list) => list.some((e) => e.subject === subject)).then((list) =>
    list.find((e) => e.subject === subject),
  );

describe('a message to a receiving-enabled domain', () => {
  const pdf = Buffer.concat([Buffer.from('%PDF-1.4\n'), Buffer.from(Array.from({ length: 3000 }, (_, i) => i % 256))]);
  const subject = `Order question ${Date.now()}`;
  let sent: Buffer;
  let sesMessageId: string;
  let listed: any;

  beforeAll(async () => {
    const to = `anything@${domain.name}`;
    sent = messageWithAttachment(to, subject, pdf);
    sesMessageId = await sendMail([to], sent);
    listed = await receivedWithSubject(subject);
  });

  it('appears in GET /emails/receiving with its subject, addresses and attachment metadata', () => {
    expect(listed).toMatchObject({
      object: 'email',
      from: 'Jane Sender <jane@outside.example>',
      to: [`anything@${domain.name}`],
      cc: ['copy@outside.example'],
      received_for: [`anything@${domain.name}`],
      subject,
      spam_verdict: 'disabled',
      virus_verdict: 'disabled',
      attachments: [
        {
          filename: 'invoice.pdf',
          content_type: 'application/pdf',
          content_disposition: 'attachment',
          content_id: null,
          size: pdf.length,
        },
      ],
    });
    expect(listed.id).toMatch(ID);
    expect(listed.attachments[0].id).toMatch(ID);
    expect(listed).not.toHaveProperty('html');
    expect(listed).not.toHaveProperty('raw');
  });

  it('has its text and html, headers, and a raw download byte-for-byte identical to what was sent', async () => {
    const res = await api.get(`/emails/receiving/${listed.id}`, as());
    expect(res.status).toBe(200);
    expect(res.body.text).toContain('Hello from outside, café.');
    expect(res.body.text).toContain('\n.a line that starts with a dot'); // SMTP dot-stuffing undone
    expect(res.body.html).toContain('<p>Hello from outside</p>');
    expect(res.body.headers).toMatchObject({ subject, 'mime-version': '1.0' });
    expect(res.body.message_id).toBe(`<${subject.replace(/\W/g, '')}@outside.example>`);
    expect(Date.parse(res.body.raw.expires_at)).toBeGreaterThan(Date.now());
    const raw = await fetch(res.body.raw.download_url);
    expect(raw.status).toBe(200);
    expect(Buffer.from(await raw.arrayBuffer()).equals(sent)).toBe(true);
    expect(existsSync(rawPath(sesMessageId))).toBe(true);
    expect((await api.get(`/emails/receiving/${listed.id}?html_format=cid`, as())).body.html).toBe(res.body.html);
    expect((await api.get(`/emails/receiving/${listed.id}?html_format=data_uri`, as())).body).toMatchObject({
      name: 'validation_error',
      errors: [{ path: 'html_format' }],
    });
  });

  it('lists and serves its attachment through download URLs', async () => {
    const attachmentId = listed.attachments[0].id;
    const list = await api.get(`/emails/receiving/${listed.id}/attachments`, as());
    expect(list.status).toBe(200);
    expect(list.body).toMatchObject({
      object: 'list',
      has_more: false,
      data: [{ object: 'attachment', id: attachmentId, filename: 'invoice.pdf', size: pdf.length }],
    });
    const one = await api.get(`/emails/receiving/${listed.id}/attachments/${attachmentId}`, as());
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({
      object: 'attachment',
      id: attachmentId,
      content_type: 'application/pdf',
      download_url: expect.any(String),
      expires_at: expect.any(String),
    });
    const file = await waitFor(
      () => fetch(one.body.download_url),
      (r) => r.status === 200,
    ); // stored right after email.received
    expect(file.headers.get('content-disposition')).toBe('attachment; filename="invoice.pdf"');
    expect(Buffer.from(await file.arrayBuffer()).equals(pdf)).toBe(true);
    expect((await api.get(`/emails/receiving/${listed.id}/attachments/${MISSING}`, as())).status).toBe(404);
  });

  it('sends email.received and then email.stored to the subscribed webhook, signed', async () => {
    const ofEmail = () => receiver.receipts.filter((r) => r.json.data?.object?.id === listed.id);
    const receipts = await waitFor(
      async () => ofEmail(),
      (list) => list.length >= 2,
    );
    const types = receipts.map((r) => r.json.type);
    expect(types.sort()).toEqual(['email.received', 'email.stored']);
    const received = receipts.find((r) => r.json.type === 'email.received')!;
    const stored = receipts.find((r) => r.json.type === 'email.stored')!;
    expect(received.json.id < stored.json.id).toBe(true); // UUIDv7 event ids: received first
    for (const receipt of receipts) {
      expect(() =>
        new StandardWebhook(signingSecret).verify(receipt.body, receipt.headers as Record<string, string>),
      ).not.toThrow();
      expect(receipt.json.data.object).toMatchObject({
        object: 'email',
        id: listed.id,
        subject,
        attachments: [{ filename: 'invoice.pdf' }],
      });
    }
  });

  it('reads the same through the official resend SDK (emails.receiving)', async () => {
    const resend = new Resend(key, { baseUrl: baseUrl() });
    const list = await resend.emails.receiving.list();
    expect(list.error).toBeNull();
    expect(list.data!.data.map((e) => e.id)).toContain(listed.id);
    const got = await resend.emails.receiving.get(listed.id);
    expect(got.error).toBeNull();
    expect(got.data).toMatchObject({ id: listed.id, subject, raw: { download_url: expect.any(String) } });
    const attachments = await resend.emails.receiving.attachments.list({ emailId: listed.id });
    expect(attachments.error).toBeNull();
    const [first] = attachments.data!.data;
    const one = await resend.emails.receiving.attachments.get({ emailId: listed.id, id: first.id });
    expect(one.data).toMatchObject({
      object: 'attachment',
      id: first.id,
      filename: 'invoice.pdf',
      download_url: expect.any(String),
    });
  });

  it('is not visible to another project', async () => {
    expect((await api.get(`/emails/receiving/${listed.id}`)).status).toBe(404);
    expect((await api.get('/emails/receiving?limit=100')).body.data.some((e: any) => e.id === listed.id)).toBe(false);
  });
});

it('stores a message in another charset, and a malformed one as far as it can be read', async () => {
  const cyrillic = Buffer.from([0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]); // "Привет" in windows-1251
  const subject = `Gr=FC=DFe ${Date.now()}`;
  const message = Buffer.concat([
    crlf([
      `From: =?ISO-8859-1?Q?J=F6rg?= <joerg@outside.example>`,
      `To: a@${domain.name}`,
      `Subject: =?ISO-8859-1?Q?${subject.replace(/ /g, '_')}?=`,
      'Content-Type: text/plain; charset=windows-1251',
      '',
    ]),
    cyrillic,
    Buffer.from('\r\n'),
  ]);
  await sendMail([`a@${domain.name}`], message);
  const decodedSubject = subject.replace('=FC', 'ü').replace('=DF', 'ß');
  const listed = await receivedWithSubject(decodedSubject);
  expect(listed.from).toBe('Jörg <joerg@outside.example>');
  expect((await api.get(`/emails/receiving/${listed.id}`, as())).body.text.trim()).toBe('Привет');

  // no header block worth the name, a multipart without its boundary, binary noise
  const broken = Buffer.concat([
    crlf(['Content-Type: multipart/mixed; boundary="never"', '', '--nope', 'garbage']),
    Buffer.from([0x00, 0xff, 0x80, 0x0d, 0x0a]),
  ]);
  const id = await sendMail([`b@${domain.name}`], broken, 'mailer-daemon@outside.example');
  const record = await waitFor(listReceived, (list) =>
    list.some((e) => e.received_for.includes(`b@${domain.name}`)),
  ).then((list) => list.find((e) => e.received_for.includes(`b@${domain.name}`)));
  expect(record).toMatchObject({ subject: '', from: 'mailer-daemon@outside.example', attachments: [] });
  const full = await api.get(`/emails/receiving/${record.id}`, as());
  expect(Buffer.from(await (await fetch(full.body.raw.download_url)).arrayBuffer()).equals(broken)).toBe(true);
  expect(existsSync(rawPath(id))).toBe(true);
});

it('drops mail for domains that do not receive: not stored, no event, raw message not kept', async () => {
  const subject = `Not for us ${Date.now()}`;
  const nobody = `x@${uniqueDomain('unclaimed')}`;
  const notReceiving = `y@${plainDomain.name}`;
  const ids = [
    await sendMail([nobody], crlf(['From: a@outside.example', `To: ${nobody}`, `Subject: ${subject}`, '', 'hi'])),
    await sendMail(
      [notReceiving],
      crlf(['From: a@outside.example', `To: ${notReceiving}`, `Subject: ${subject}`, '', 'hi']),
    ),
  ];
  // the worker deletes the raw message of mail nobody takes: that is the sign it has been handled
  await waitFor(
    async () => ids.map((id) => existsSync(rawPath(id))),
    (exists) => exists.every((e) => !e),
  );
  expect((await listReceived()).some((e) => e.subject === subject)).toBe(false);
  const events = (await api.get('/events', as())).body.data as any[];
  expect(events.some((e) => e.data.object.subject === subject)).toBe(false);
  expect(receiver.receipts.some((r) => r.json.data?.object?.subject === subject)).toBe(false);
});

it('drops mail for a receiving-enabled domain that never verified, as SES does', async () => {
  const unverified = (
    await api.post(
      '/domains',
      { name: `never-${Date.now().toString(36)}.example.invalid`, capabilities: { receiving: 'enabled' } },
      as(),
    )
  ).body;
  expect(unverified.status).not.toBe('verified');
  const subject = `Unverified ${Date.now()}`;
  const to = `x@${unverified.name}`;
  const id = await sendMail([to], crlf(['From: a@outside.example', `To: ${to}`, `Subject: ${subject}`, '', 'hi']));
  await waitFor(
    async () => existsSync(rawPath(id)),
    (exists) => !exists,
  );
  expect((await listReceived()).some((e) => e.subject === subject)).toBe(false);
  expect(((await api.get('/events', as())).body.data as any[]).some((e) => e.data.object.subject === subject)).toBe(
    false,
  );
  expect((await api.get(`/domains/${unverified.id}`, as())).body.status).not.toBe('verified');
});

it('stops receiving for a domain once receiving is disabled, and gives the receiving MX record only while enabled', async () => {
  const other = (
    await api.post('/domains', { name: uniqueDomain('toggle'), capabilities: { receiving: 'enabled' } }, as())
  ).body;
  await verified(other.id);
  expect(other.records).toEqual(
    expect.arrayContaining([
      expect.objectContaining({
        record: 'Receiving',
        type: 'MX',
        name: other.name,
        value: 'inbound-smtp.ap-southeast-2.amazonaws.com',
        priority: 10,
      }),
    ]),
  );
  const disabled = await api.patch(`/domains/${other.id}`, { capabilities: { receiving: 'disabled' } }, as());
  expect(disabled.body.records.some((r: any) => r.record === 'Receiving')).toBe(false);
  const subject = `After disabling ${Date.now()}`;
  const id = await sendMail(
    [`z@${other.name}`],
    crlf(['From: a@outside.example', `To: z@${other.name}`, `Subject: ${subject}`, '', 'hi']),
  );
  await waitFor(
    async () => existsSync(rawPath(id)),
    (exists) => !exists,
  );
  expect((await listReceived()).some((e) => e.subject === subject)).toBe(false);
});

it('pages through received emails, newest first', async () => {
  const base = `Page ${Date.now()}`;
  for (const n of [1, 2, 3])
    await sendMail(
      [`p${n}@${domain.name}`],
      crlf(['From: a@outside.example', `To: p${n}@${domain.name}`, `Subject: ${base} ${n}`, '', 'x']),
    );
  await waitFor(listReceived, (list) => list.filter((e) => e.subject.startsWith(base)).length === 3);
  const first = await api.get('/emails/receiving?limit=2', as());
  expect(first.body).toMatchObject({ object: 'list', has_more: true });
  expect(first.body.data).toHaveLength(2);
  expect(first.body.data[0].id > first.body.data[1].id).toBe(true);
  const next = await api.get(`/emails/receiving?limit=2&after=${first.body.data[1].id}`, as());
  expect(next.body.data[0].id < first.body.data[1].id).toBe(true);
  expect((await api.get('/emails/receiving?limit=0', as())).status).toBe(422);
  expect((await api.get('/emails/receiving/not-a-uuid', as())).body).toMatchObject({
    name: 'validation_error',
    errors: [{ path: 'email_id' }],
  });
  expect((await api.get(`/emails/receiving/${MISSING}`, as())).status).toBe(404);
  expect((await api.get(`/emails/receiving/${MISSING}/attachments`, as())).status).toBe(404);
});

it('pages through the attachments of a message, inline parts included, in message order', async () => {
  const subject = `Three files ${Date.now()}`;
  const part = (name: string, type: string, extra: string[] = []) => [
    '--m',
    `Content-Type: ${type}; name="${name}"`,
    ...extra,
    'Content-Transfer-Encoding: base64',
    '',
    Buffer.from(`content of ${name}`).toString('base64'),
  ];
  await sendMail(
    [`files@${domain.name}`],
    crlf([
      'From: a@outside.example',
      `To: files@${domain.name}`,
      `Subject: ${subject}`,
      'Content-Type: multipart/mixed; boundary="m"',
      '',
      '--m',
      'Content-Type: text/html; charset=utf-8',
      '',
      '<img src="cid:logo@outside">',
      ...part('logo.png', 'image/png', [
        'Content-ID: <logo@outside>',
        'Content-Disposition: inline; filename="logo.png"',
      ]),
      ...part('a.txt', 'text/plain', ['Content-Disposition: attachment; filename="a.txt"']),
      ...part('b.csv', 'text/csv', ['Content-Disposition: attachment; filename="b.csv"']),
      '--m--',
    ]),
  );
  const listed = await receivedWithSubject(subject);
  expect(listed.attachments.map((a: any) => [a.filename, a.content_disposition, a.content_id])).toEqual([
    ['logo.png', 'inline', 'logo@outside'],
    ['a.txt', 'attachment', null],
    ['b.csv', 'attachment', null],
  ]);
  const first = await api.get(`/emails/receiving/${listed.id}/attachments?limit=2`, as());
  expect(first.body).toMatchObject({ has_more: true, data: [{ filename: 'logo.png' }, { filename: 'a.txt' }] });
  const rest = await api.get(`/emails/receiving/${listed.id}/attachments?limit=2&after=${first.body.data[1].id}`, as());
  expect(rest.body).toMatchObject({ has_more: false, data: [{ filename: 'b.csv' }] });
  const back = await api.get(`/emails/receiving/${listed.id}/attachments?limit=1&before=${rest.body.data[0].id}`, as());
  expect(back.body).toMatchObject({ has_more: true, data: [{ filename: 'a.txt' }] });
  const csv = await waitFor(
    () => fetch(rest.body.data[0].download_url),
    (r) => r.status === 200,
  );
  expect(csv.headers.get('content-type')).toBe('text/csv');
  expect(await csv.text()).toBe('content of b.csv');
  expect((await api.get(`/emails/receiving/${listed.id}/attachments?after=${MISSING}`, as())).status).toBe(422);
});

it('refuses a message over 40 MB at MAIL FROM, as SES does', async () => {
  const smtp = await Smtp.open();
  try {
    await expect(smtp.command(`MAIL FROM:<big@outside.example> SIZE=${40 * 1024 * 1024 + 1}`, 250)).rejects.toThrow(
      /expected 250, got 552/,
    );
  } finally {
    await smtp.close();
  }
});
