/**
 * Attachments at real sizes, end to end, in a runtime of this suite's own (its local SES store
 * then holds these big messages, not the shared one's): a 5 MB request of base64 attachments and a
 * 20 MB `path` attachment reach the local SES byte for byte (SHA-256), the email's item stays
 * small (the bytes are objects of their own), inline attachments go as INLINE with their
 * Content-ID, content types are inferred from file names, GET /emails/{id}/attachments serves
 * every attachment from its download URL, and a `path` that cannot be fetched fails the email with
 * the reason. The `path` server is on 127.0.0.1 (the local runtime allows http to loopback, as
 * for webhooks; on AWS only https to public addresses: test/unit/attachments.test.ts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DynamoDBClient, GetItemCommand } from '@aws-sdk/client-dynamodb';
import type { ChildProcess } from 'node:child_process';
import * as keys from '../../shared/platform/db/keys';
import { startRuntimeProcess, stopRuntimeProcess } from '../support/runtime-process';
import { waitFor } from '../support/wait';

const KEY = `es_live_${'A'.repeat(32)}`;
let dataDir: string;
let child: ChildProcess;
let baseUrl: string;
let output: () => string;
let files: Server;
let filesUrl: string;
const served = new Map<string, Buffer>();

async function call(method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const response = await fetch(baseUrl + path, {
    method,
    headers: { authorization: `Bearer ${KEY}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');
const fromBanner = (label: string) => new RegExp(`^${label} (\\S+)`, 'm').exec(output())![1];

interface StoredAttachment {
  filename: string;
  content: string;
  contentType: string;
  contentDisposition?: string;
  contentId?: string;
  size: number;
}
async function storedMail(subject: string): Promise<{ attachments: StoredAttachment[] } | undefined> {
  const store = (await fetch(`${fromBanner('Mail viewer')}/store`).then((r) => r.json())) as {
    emails: { subject: string; attachments: StoredAttachment[] }[];
  };
  return store.emails.find((e) => e.subject === subject);
}

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'email-service-attachments-'));
  files = createServer((request, response) => {
    const url = request.url ?? '/';
    if (url.startsWith('/elsewhere'))
      return response
        .writeHead(302, { location: `http://localhost:${(files.address() as AddressInfo).port}/big.bin` })
        .end();
    if (url.startsWith('/again')) return response.writeHead(302, { location: '/big.bin' }).end();
    if (url.startsWith('/huge')) {
      response.writeHead(200, { 'content-length': String(40 * 1024 * 1024) });
      return response.end(); // says 40 MB, sends nothing: refused on what it declares
    }
    const body = served.get(url.split('?')[0]);
    if (!body) return response.writeHead(404).end('no such file');
    response
      .writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) })
      .end(body);
  });
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  const started = await startRuntimeProcess({
    DATA_DIR: dataDir,
    LOCAL_API_KEY: KEY,
    LOCAL_SES_VERIFY_DELAY_MS: '0',
    API_RATE_LIMIT_PER_SECOND: '1000',
  });
  child = started.child;
  baseUrl = started.apiUrl;
  output = started.output;
}, 120_000);

afterAll(async () => {
  await stopRuntimeProcess(child);
  await new Promise((resolve) => files?.close(resolve));
  rmSync(dataDir, { recursive: true, force: true });
});

async function verifiedDomain(): Promise<string> {
  const name = `att-${Date.now().toString(36)}.example.com`;
  const created = await call('POST', '/domains', { name });
  expect(created.status).toBe(201);
  await waitFor(
    () => call('POST', `/domains/${created.body.id}/verify`),
    (r) => r.body.status === 'verified',
  );
  return name;
}

/**
 * The email once the runtime's pipeline has settled (its control API's drain, local/control.ts): the path fetched
 * or refused, the message sent, and the local SES's Delivery handled. reader@example.com is delivered (any address the
 * local SES does not simulate otherwise is), so an email ends `delivered`, or `failed` when its attachment could not be had.
 */
async function settled(id: string): Promise<{ last_event: string }> {
  const drained = await call('POST', '/_local/drain', { timeout_seconds: 100 });
  expect(drained.status).toBe(200);
  return (await call('GET', `/emails/${id}`)).body;
}

describe('attachments at real sizes', () => {
  let domain: string;
  beforeAll(async () => {
    domain = await verifiedDomain();
  }, 60_000);

  it('takes a 5 MB request of attachments, inline ones included, to SES intact, keeps the item small, and serves each for download', async () => {
    const report = randomBytes(3_760_000); // 5.0 MB in base64
    const logo = randomBytes(20_000);
    const subject = `five megabytes ${Date.now()}`;
    const body = {
      from: `files@${domain}`,
      to: 'reader@example.com',
      subject,
      html: '<p><img src="cid:logo-1@example"></p>',
      attachments: [
        { filename: 'report.pdf', content: report.toString('base64') },
        { filename: 'logo.png', content: logo.toString('base64'), content_id: 'logo-1@example' },
      ],
    };
    expect(JSON.stringify(body).length).toBeGreaterThan(5_000_000);
    const sent = await call('POST', '/emails', body);
    expect(sent.status).toBe(200);
    expect((await settled(sent.body.id)).last_event).toBe('delivered');

    const mail = await storedMail(subject);
    const [pdf, png] = mail!.attachments;
    expect({ name: pdf.filename, type: pdf.contentType, sha: sha256(Buffer.from(pdf.content, 'base64')) }).toEqual({
      name: 'report.pdf',
      type: 'application/pdf',
      sha: sha256(report),
    });
    expect({
      type: png.contentType,
      disposition: png.contentDisposition,
      id: png.contentId,
      sha: sha256(Buffer.from(png.content, 'base64')),
    }).toEqual({
      type: 'image/png',
      disposition: 'INLINE',
      id: 'logo-1@example',
      sha: sha256(logo),
    });

    // the email's item holds the envelope only: the bytes are objects of their own
    const dynamo = new DynamoDBClient({
      endpoint: fromBanner('DynamoDB Local'),
      region: 'ap-southeast-2',
      credentials: { accessKeyId: 'local', secretAccessKey: 'local' },
    });
    const table = /\(table (\S+),/.exec(output())![1];
    const emailKey = keys.email(fromBanner('Project'), sent.body.id);
    const item = await dynamo.send(
      new GetItemCommand({ TableName: table, Key: { PK: { S: emailKey.PK }, SK: { S: emailKey.SK } } }),
    );
    expect(item.Item).toBeDefined();
    expect(JSON.stringify(item.Item).length).toBeLessThan(2048);
    dynamo.destroy();

    const listed = await call('GET', `/emails/${sent.body.id}/attachments`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({ object: 'list', has_more: false });
    expect(
      listed.body.data.map(
        (a: { filename: string; size: number; content_disposition: string; content_id: string | null }) => [
          a.filename,
          a.size,
          a.content_disposition,
          a.content_id,
        ],
      ),
    ).toEqual([
      ['report.pdf', report.length, 'attachment', null],
      ['logo.png', logo.length, 'inline', 'logo-1@example'],
    ]);
    const one = await call('GET', `/emails/${sent.body.id}/attachments/${listed.body.data[0].id}`);
    expect(one.body).toMatchObject({
      object: 'attachment',
      content_type: 'application/pdf',
      expires_at: expect.any(String),
    });
    const download = await fetch(one.body.download_url);
    expect(download.status).toBe(200);
    expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(report));
    expect((await call('GET', `/emails/${sent.body.id}/attachments/01900000-0000-7000-8000-000000000000`)).status).toBe(
      404,
    );
  }, 120_000);

  it('sends a batch of 100 emails, each with an attachment of its own, to SES intact (Resend refuses attachments in batches)', async () => {
    const files = Array.from({ length: 100 }, () => randomBytes(28_000)); // 3.7 MB of base64 in all
    const run = Date.now();
    const batch = files.map((file, i) => ({
      from: `files@${domain}`,
      to: 'reader@example.com',
      subject: `batch ${run} #${i}`,
      text: `email ${i}`,
      attachments: [{ filename: `statement-${i}.pdf`, content: file.toString('base64') }],
    }));
    expect(JSON.stringify(batch).length).toBeLessThan(5 * 1024 * 1024);
    const sent = await call('POST', '/emails/batch', batch);
    expect(sent.status).toBe(200);
    const ids: string[] = sent.body.data.map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(100);
    await settled(ids[0]);
    for (const id of ids) expect((await call('GET', `/emails/${id}`)).body.last_event).toBe('delivered');

    const store = (await fetch(`${fromBanner('Mail viewer')}/store`).then((r) => r.json())) as {
      emails: { subject: string; attachments: StoredAttachment[] }[];
    };
    for (const [i, file] of files.entries()) {
      const mail = store.emails.find((e) => e.subject === `batch ${run} #${i}`);
      expect(mail?.attachments.map((a) => [a.filename, sha256(Buffer.from(a.content, 'base64'))])).toEqual([
        [`statement-${i}.pdf`, sha256(file)],
      ]);
    }
    // each email serves its own file
    for (const i of [0, 99]) {
      const [listed] = (await call('GET', `/emails/${ids[i]}/attachments`)).body.data;
      expect(listed).toMatchObject({ filename: `statement-${i}.pdf`, size: files[i].length });
      const download = await fetch(listed.download_url);
      expect(sha256(Buffer.from(await download.arrayBuffer()))).toBe(sha256(files[i]));
    }
  }, 180_000);

  it('fetches a 20 MB path attachment when it sends, to SES intact, and serves it afterwards', async () => {
    const big = randomBytes(20 * 1024 * 1024);
    served.set('/big.bin', big);
    const subject = `twenty megabytes ${Date.now()}`;
    const sent = await call('POST', '/emails', {
      from: `files@${domain}`,
      to: 'reader@example.com',
      subject,
      text: 'see attached',
      attachments: [{ path: `${filesUrl}/big.bin?v=1` }],
    });
    expect(sent.status).toBe(200);
    expect((await settled(sent.body.id)).last_event).toBe('delivered');
    const [stored] = (await storedMail(subject))!.attachments;
    expect({ name: stored.filename, type: stored.contentType, size: stored.size }).toEqual({
      name: 'big.bin',
      type: 'application/octet-stream',
      size: big.length,
    });
    expect(sha256(Buffer.from(stored.content, 'base64'))).toBe(sha256(big));
    const [listed] = (await call('GET', `/emails/${sent.body.id}/attachments`)).body.data;
    expect(listed).toMatchObject({ filename: 'big.bin', size: big.length, download_url: expect.any(String) });
  }, 120_000);

  it.each([
    ['a 404', '/missing.pdf', /answered 404/],
    ['a redirect to another host', '/elsewhere', /redirects to another host \(localhost\)/],
    ['a file over what the email may carry', '/huge', /over the \d+ bytes left/],
  ])(
    'fails the email with the reason when the path gives %s',
    async (_, path, reason) => {
      const sent = await call('POST', '/emails', {
        from: `files@${domain}`,
        to: 'reader@example.com',
        subject: `bad path ${path}`,
        text: 'x',
        attachments: [{ path: `${filesUrl}${path}` }],
      });
      expect(sent.status).toBe(200);
      expect((await settled(sent.body.id)).last_event).toBe('failed');
      const events = (await call('GET', '/events')).body.data.filter(
        (e: any) => e.type === 'email.failed' && e.data.email_id === sent.body.id,
      );
      expect(events[0].data.failed.reason).toMatch(reason);
    },
    60_000,
  );

  it('follows a redirect on the same host', async () => {
    served.set('/small.txt', Buffer.from('hello'));
    const sent = await call('POST', '/emails', {
      from: `files@${domain}`,
      to: 'reader@example.com',
      subject: 'redirected',
      text: 'x',
      attachments: [{ path: `${filesUrl}/again`, filename: 'renamed.txt' }],
    });
    expect((await settled(sent.body.id)).last_event).toBe('delivered');
  }, 60_000);

  it('refuses attachments that are neither content nor path, both, or a path the guard refuses (422)', async () => {
    const send = (attachment: unknown) =>
      call('POST', '/emails', {
        from: `files@${domain}`,
        to: 'reader@example.com',
        subject: 'bad',
        text: 'x',
        attachments: [attachment],
      });
    for (const [attachment, path] of [
      [{ filename: 'a.txt' }, 'attachments.0.content'],
      [{ filename: 'a.txt', content: 'aGk=', path: `${filesUrl}/a` }, 'attachments.0.content'],
      [{ content: 'aGk=' }, 'attachments.0.filename'],
      [{ path: 'ftp://files.example.com/a.txt' }, 'attachments.0.path'],
      [{ path: 'https://169.254.169.254/latest/meta-data' }, 'attachments.0.path'],
      [{ path: 'https://10.0.0.8/a.txt' }, 'attachments.0.path'],
      [{ filename: 'a.txt', content: 'aGk=', content_id: '<brackets>' }, 'attachments.0.content_id'],
    ] as const) {
      const answer = await send(attachment);
      expect({
        attachment,
        status: answer.status,
        paths: answer.body.errors.map((e: { path: string }) => e.path),
      }).toEqual({ attachment, status: 422, paths: expect.arrayContaining([path]) });
    }
  });
});
