/**
 * The inbound bucket's small S3 client (shared/platform/aws/s3.ts) against the real
 * `@aws-sdk/client-s3` and `@aws-sdk/s3-request-presigner`: the same presigned URLs for the same
 * credentials and time, the same request lines for every call; and both clients against the
 * local S3 stand-in (local/aws/s3.ts), which must speak S3 well enough for either.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import type { HttpRequest } from '@smithy/types';
import { startLocalS3, type LocalS3 } from '../../local/aws/s3';
import { signedFetch } from '../../local/aws/sigv4';
import { captureFetch } from '../support/capture-fetch';
import {
  contentDisposition,
  deleteObject,
  getObject,
  getObjectStream,
  headObject,
  presignGet,
  presignPut,
  putObject,
} from '../../shared/platform/aws/s3';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const BUCKET = 'inbound-test-bucket';
const saved = { ...process.env };
Object.assign(process.env, {
  AWS_REGION: 'ap-southeast-2',
  AWS_ACCESS_KEY_ID: credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  INBOUND_BUCKET: BUCKET,
});
delete process.env.AWS_SESSION_TOKEN;
delete process.env.AWS_ENDPOINT_URL_S3;
afterAll(() => {
  process.env = saved;
});

const sdkClient = (endpoint?: string, requestHandler?: S3Client['config']['requestHandler']) =>
  new S3Client({
    region: 'ap-southeast-2',
    credentials,
    ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    ...(requestHandler ? { requestHandler } : {}),
  });

const sortedQuery = (url: string) => [...new URL(url).searchParams.entries()].sort(([a], [b]) => a.localeCompare(b));

describe('presigned URLs', () => {
  const signingDate = new Date('2026-11-22T08:01:02.000Z');
  const endpoints = [
    ['the regional endpoint (virtual-hosted)', undefined],
    ['a custom endpoint (path-style)', 'http://127.0.0.1:4599'],
  ] as const;

  /** Our URL beside the one the SDK presigner makes for `command`, with the same credentials and time, at `endpoint`: the same. */
  async function sameAsSdk(
    endpoint: string | undefined,
    ours: () => Promise<{ url: string; expires_at: string }>,
    command: GetObjectCommand | PutObjectCommand,
    expiresIn: number,
  ) {
    if (endpoint) process.env.AWS_ENDPOINT_URL_S3 = endpoint;
    else delete process.env.AWS_ENDPOINT_URL_S3;
    const url = await ours();
    // (without the SDK's default checksum parameters, `x-amz-checksum-mode` and an empty body's CRC32, which nothing here reads)
    const client = new S3Client({
      region: 'ap-southeast-2',
      credentials,
      requestChecksumCalculation: 'WHEN_REQUIRED',
      responseChecksumValidation: 'WHEN_REQUIRED',
      ...(endpoint ? { endpoint, forcePathStyle: true } : {}),
    });
    const theirs = await getSignedUrl(client, command, { expiresIn, signingDate });
    expect(new URL(url.url).origin + new URL(url.url).pathname).toBe(new URL(theirs).origin + new URL(theirs).pathname);
    expect(sortedQuery(url.url)).toEqual(sortedQuery(theirs));
    delete process.env.AWS_ENDPOINT_URL_S3;
    return url;
  }

  it.each(endpoints)(
    'for downloads are the URLs the SDK presigner makes for a GetObject, for %s',
    async (_what, endpoint) => {
      const key = 'attachments/p1/r1/a 1(ü).pdf';
      const disposition = contentDisposition('attachment', 'Rechnung ü.pdf');
      const ours = await sameAsSdk(
        endpoint,
        async () => {
          const { download_url, expires_at } = await presignGet(key, {
            expiresInSeconds: 3600,
            contentType: 'application/pdf',
            contentDisposition: disposition,
            now: signingDate,
          });
          return { url: download_url, expires_at };
        },
        new GetObjectCommand({
          Bucket: BUCKET,
          Key: key,
          ResponseContentType: 'application/pdf',
          ResponseContentDisposition: disposition,
        }),
        3600,
      );
      expect(ours.expires_at).toBe('2026-11-22T09:01:02.000Z');
    },
  );

  it.each(endpoints)(
    'for uploads are the URLs the SDK presigner makes for a PutObject, for %s',
    async (_what, endpoint) => {
      const key = 'imports/p1/0199aaaa-0000-7000-8000-000000000001.csv';
      const ours = await sameAsSdk(
        endpoint,
        async () => {
          const { upload_url, expires_at } = await presignPut(key, { expiresInSeconds: 900, now: signingDate });
          return { url: upload_url, expires_at };
        },
        new PutObjectCommand({ Bucket: BUCKET, Key: key }),
        900,
      );
      expect(ours.expires_at).toBe('2026-11-22T08:16:02.000Z');
    },
  );

  it.each(endpoints)(
    'for uploads of a declared size sign its Content-Length, as the SDK presigner does for a PutObject with ContentLength, for %s',
    async (_what, endpoint) => {
      const key = 'imports/p1/0199aaaa-0000-7000-8000-000000000002.csv';
      const ours = await sameAsSdk(
        endpoint,
        async () => {
          const { upload_url, expires_at } = await presignPut(key, {
            expiresInSeconds: 900,
            now: signingDate,
            contentLength: 12345,
          });
          return { url: upload_url, expires_at };
        },
        new PutObjectCommand({ Bucket: BUCKET, Key: key, ContentLength: 12345 }),
        900,
      );
      expect(new URL(ours.url).searchParams.get('X-Amz-SignedHeaders')).toBe('content-length;host');
    },
  );
});

describe('signed requests', () => {
  /** What the SDK would put on the wire, captured instead of sent. */
  async function sdkRequest(
    command: GetObjectCommand | PutObjectCommand | HeadObjectCommand | DeleteObjectCommand,
  ): Promise<HttpRequest> {
    let captured: HttpRequest | undefined;
    const handler = {
      handle: async (request: HttpRequest) => {
        captured = request;
        throw new Error('captured');
      },
    };
    await sdkClient(undefined, handler as never)
      .send(command as never)
      .catch(() => undefined);
    return captured!;
  }

  /** What ours puts on the wire, captured from fetch. */
  const ourRequest = (call: () => Promise<unknown>) =>
    captureFetch(
      call,
      (init) => new Response(null, { status: init.method === 'HEAD' ? 200 : 204, headers: { 'content-length': '0' } }),
    );

  it.each([
    ['GetObject', () => new GetObjectCommand({ Bucket: BUCKET, Key: 'raw/abc' }), () => getObject('raw/abc')],
    ['HeadObject', () => new HeadObjectCommand({ Bucket: BUCKET, Key: 'raw/abc' }), () => headObject('raw/abc')],
    ['DeleteObject', () => new DeleteObjectCommand({ Bucket: BUCKET, Key: 'raw/abc' }), () => deleteObject('raw/abc')],
    [
      'PutObject',
      () =>
        new PutObjectCommand({
          Bucket: BUCKET,
          Key: 'bodies/p/r.json',
          Body: Buffer.from('{}'),
          ContentType: 'application/json',
        }),
      () => putObject('bodies/p/r.json', Buffer.from('{}'), 'application/json'),
    ],
  ])(
    '%s goes to the same host, path and query as the SDK sends it, signed for the same scope',
    async (_name, command, call) => {
      const theirs = await sdkRequest(command());
      const ours = await ourRequest(call);
      expect(ours.method).toBe(theirs.method);
      expect(ours.url.hostname).toBe(theirs.hostname);
      expect(ours.url.pathname).toBe(theirs.path);
      expect(Object.fromEntries(ours.url.searchParams)).toEqual(theirs.query);
      const scope = (auth: string) => /Credential=([^,]+)/.exec(auth)?.[1];
      expect(scope(ours.headers.authorization)).toBe(scope(String(theirs.headers.authorization)));
      expect(scope(ours.headers.authorization)).toMatch(/^AKIDEXAMPLE\/\d{8}\/ap-southeast-2\/s3\/aws4_request$/);
      expect(ours.headers['x-amz-content-sha256']).toMatch(/^[0-9a-f]{64}$/);
    },
  );
});

describe('the local S3 stand-in', () => {
  let s3: LocalS3;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'inbound-s3-'));
    s3 = await startLocalS3(root, { credentials });
    process.env.AWS_ENDPOINT_URL_S3 = s3.endpoint;
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_S3;
    await new Promise((resolve) => s3.server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });

  it('stores, reads, heads and deletes objects for the real SDK client', async () => {
    const client = sdkClient(s3.endpoint);
    const body = Buffer.from('Subject: hi\r\n\r\nbytes \x00\xff', 'latin1');
    await client.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'raw/one', Body: body, ContentType: 'message/rfc822' }),
    );
    const got = await client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'raw/one' }));
    expect(Buffer.from(await got.Body!.transformToByteArray())).toEqual(body);
    expect(got.ContentType).toBe('message/rfc822');
    expect((await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'raw/one' }))).ContentLength).toBe(
      body.length,
    );
    await client.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'raw/one' }));
    await expect(client.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'raw/one' }))).rejects.toMatchObject({
      name: 'NoSuchKey',
    });
    client.destroy();
  });

  it("does the same for the service's own client, and serves its presigned URLs with the requested headers", async () => {
    const body = Buffer.from('%PDF-1.4 \x01\x02', 'latin1');
    await putObject('attachments/p/r/a', body, 'application/pdf');
    expect(await getObject('attachments/p/r/a')).toEqual(body);
    expect(await headObject('attachments/p/r/a')).toEqual({
      size: body.length,
      etag: expect.stringMatching(/^"[0-9a-f]{32}"$/),
    });
    expect(await getObject('attachments/p/r/missing')).toBeUndefined();
    expect(await headObject('attachments/p/r/missing')).toBeUndefined();

    const { download_url } = await presignGet('attachments/p/r/a', {
      contentDisposition: contentDisposition('attachment', 'Angebot ü.pdf'),
      contentType: 'application/pdf',
    });
    const response = await fetch(download_url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/pdf');
    expect(response.headers.get('content-disposition')).toBe(
      `attachment; filename="Angebot _.pdf"; filename*=UTF-8''Angebot%20%C3%BC.pdf`,
    );
    expect(Buffer.from(await response.arrayBuffer())).toEqual(body);

    await deleteObject('attachments/p/r/a');
    expect(await getObject('attachments/p/r/a')).toBeUndefined();
    await deleteObject('attachments/p/r/a'); // twice is fine, as in S3
  });

  it('reads an object in ranges from an offset, as long as it keeps its ETag', async () => {
    const body = Buffer.from('0123456789'.repeat(1000));
    await putObject('imports/p/f.csv', body, 'text/csv');
    const head = (await headObject('imports/p/f.csv'))!;
    const read = async (options: Parameters<typeof getObjectStream>[2]) =>
      Buffer.from(await new Response(await getObjectStream('imports/p/f.csv', 'inbound', options)).arrayBuffer());
    expect(await read({ from: 9990 })).toEqual(body.subarray(9990));
    expect(await read({ from: 5, length: 7 })).toEqual(body.subarray(5, 12));
    expect(await read({ from: body.length })).toEqual(Buffer.alloc(0)); // nothing after the end
    expect(await read({ ifMatch: head.etag })).toEqual(body);
    await expect(read({ ifMatch: '"0123"' })).rejects.toMatchObject({ code: 'PreconditionFailed', status: 412 });
    expect(await getObjectStream('imports/p/missing.csv', 'inbound')).toBeUndefined();
  });

  it('refuses a presigned URL once it has expired, and keys that would leave its folder', async () => {
    await putObject('raw/old', Buffer.from('x'), 'message/rfc822');
    const { download_url } = await presignGet('raw/old', { expiresInSeconds: 60, now: new Date(Date.now() - 120_000) });
    const response = await fetch(download_url);
    expect(response.status).toBe(403);
    expect(await response.text()).toContain('<Code>AccessDenied</Code>');
    expect((await fetch(`${s3.endpoint}/${BUCKET}/raw/old`)).status).toBe(403); // unsigned
    expect((await signedFetch(`${s3.endpoint}/${BUCKET}/raw/..%2F..%2Fetc`, credentials, 's3')).status).toBe(400); // signed, but out of its folder
  });
});

describe("the local S3 stand-in with the runtime's credentials", () => {
  let s3: LocalS3;
  let root: string;
  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'signed-s3-'));
    s3 = await startLocalS3(root, { credentials });
    process.env.AWS_ENDPOINT_URL_S3 = s3.endpoint;
  });
  afterAll(async () => {
    delete process.env.AWS_ENDPOINT_URL_S3;
    await new Promise((resolve) => s3.server.close(resolve));
    rmSync(root, { recursive: true, force: true });
  });
  const code = async (response: Response) => /<Code>([^<]+)<\/Code>/.exec(await response.text())?.[1];

  it("takes a presigned PUT and serves it back through a presigned GET, beside the handlers' signed calls", async () => {
    const { upload_url } = await presignPut('imports/p/u (1).csv', { expiresInSeconds: 900 });
    expect(
      (
        await fetch(upload_url, {
          method: 'PUT',
          headers: { 'content-type': 'text/csv' },
          body: 'email\na@example.com\n',
        })
      ).status,
    ).toBe(200);
    expect((await fetch((await presignGet('imports/p/u (1).csv')).download_url)).status).toBe(200);
    expect((await getObject('imports/p/u (1).csv'))?.toString()).toBe('email\na@example.com\n');
  });

  it('refuses a presigned URL whose key, method, expiry or signature was changed, or signed by another key, or expired, and a request signed not at all', async () => {
    const { upload_url } = await presignPut('imports/p/u2.csv', { expiresInSeconds: 900 });
    const put = (url: string, method = 'PUT') => fetch(url, { method, body: 'x' });
    expect(await code(await put(upload_url.replace('u2.csv', 'u3.csv')))).toBe('SignatureDoesNotMatch');
    expect(await code(await put(upload_url, 'POST'))).toBe('SignatureDoesNotMatch');
    expect(await code(await put(upload_url.replace(/X-Amz-Expires=\d+/, 'X-Amz-Expires=604800')))).toBe(
      'SignatureDoesNotMatch',
    );
    expect(await code(await put(upload_url.replace(/X-Amz-Signature=[0-9a-f]{4}/, 'X-Amz-Signature=0000')))).toBe(
      'SignatureDoesNotMatch',
    );
    expect(
      await code(await put(upload_url.replace(/X-Amz-Credential=AKIDEXAMPLE/, 'X-Amz-Credential=AKIDOTHER'))),
    ).toBe('InvalidAccessKeyId');
    const old = await presignPut('imports/p/u2.csv', { expiresInSeconds: 60, now: new Date(Date.now() - 120_000) });
    expect(await code(await put(old.upload_url))).toBe('AccessDenied');
    expect(await code(await put(upload_url.split('?')[0]))).toBe('AccessDenied');
    expect(await getObject('imports/p/u2.csv')).toBeUndefined();
    expect((await put(upload_url)).status).toBe(200);
  });
});
