/**
 * Every local stand-in's port against a hostile neighbour on the same machine (issue 32, finding 10):
 * the S3, KMS, SQS and SES stand-ins, started here in process on a DATA_DIR of this suite's own with
 * the credentials the runtime makes (local/aws/credentials.ts), are sent
 * - traversal (`..` raw, encoded, double-encoded, `%2F` in the bucket, backslashes, absolute paths,
 *   NUL, the `.meta` folder) by a client that does hold the credentials: refused before any file;
 * - unsigned, forged (another secret, another key id, a malformed header) and skewed requests, and
 *   presigned URLs tampered with (method, key, expiry, signature) or replayed after their expiry;
 * and answer each with the service's own error. A file beside DATA_DIR, the KMS key file and another
 * project's stored mail are never read, and nothing outside the bucket folders is written.
 */
import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { GetObjectCommand, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { GetAccountCommand, GetEmailIdentityCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { CreateQueueCommand, ListQueuesCommand, SQSClient } from '@aws-sdk/client-sqs';
import { SignatureV4 } from '@smithy/signature-v4';
import { CREDENTIALS_FILE, type StandInCredentials, standInCredentials } from '../../local/aws/credentials';
import { LOCAL_SECRETS_KEY_ID, type LocalKms, startLocalKms } from '../../local/aws/kms';
import { type LocalS3, startLocalS3, writeLocalObject } from '../../local/aws/s3';
import { SesFront } from '../../local/aws/ses-front';
import { type LocalSqs, startLocalSqs } from '../../local/aws/sqs';
import { Sha256 } from '../../shared/platform/aws/sha256';

const region = 'ap-southeast-2';
const BUCKET = 'email-service-content';
const INBOUND = 'email-service-inbound';
const SECRET_OUTSIDE = 'secret-beside-DATA_DIR';
const OTHER_PROJECT_MAIL = 'project two: private mail';

const base = mkdtempSync(join(tmpdir(), 'stand-ins-hostile-'));
const dataDir = join(base, 'data');
const outside = join(base, 'outside');
let credentials: StandInCredentials;
let s3: LocalS3;
let kms: LocalKms;
let sqs: LocalSqs;
let sesServer: Server;
let sesEndpoint: string;
let viewerServer: Server;
let viewerUrl: string;
let keyFile: string;

/** Every file under `dir` with its content's digest: what a request may not have changed. */
function snapshot(dir: string): Record<string, string> {
  const files: Record<string, string> = {};
  const walk = (at: string) => {
    for (const name of readdirSync(at)) {
      const path = join(at, name);
      if (lstatSync(path).isDirectory()) walk(path);
      else files[relative(dir, path)] = createHash('sha256').update(readFileSync(path)).digest('hex');
    }
  };
  walk(dir);
  return files;
}
/** What exists anywhere under `base` apart from the stand-ins' own data: must stay exactly so. */
const outsideBuckets = () =>
  Object.fromEntries(
    Object.entries(snapshot(base)).filter(
      ([path]) => !path.startsWith(join('data', 's3', BUCKET)) && !path.startsWith(join('data', 's3', '.meta')),
    ),
  );

beforeAll(async () => {
  mkdirSync(outside, { recursive: true });
  mkdirSync(dataDir, { recursive: true });
  writeFileSync(join(outside, 'secret.txt'), SECRET_OUTSIDE);
  credentials = standInCredentials(dataDir);
  s3 = await startLocalS3(join(dataDir, 's3'), { credentials, buckets: [BUCKET, INBOUND] });
  kms = await startLocalKms(join(dataDir, 'kms'), region, credentials);
  keyFile = join(dataDir, 'kms', `${LOCAL_SECRETS_KEY_ID}.key`);
  sqs = await startLocalSqs({ dir: join(dataDir, 'sqs'), region, credentials });
  const front = new SesFront({
    host: '127.0.0.1',
    port: 0,
    upstream: 'http://127.0.0.1:9', // never reached: what these requests ask the front answers itself, or refuses first
    verifyDelayMs: 0,
    maxSendRate: 14,
    hasMessage: () => false,
    restoreAttachments: () => undefined,
    credentials,
  });
  sesServer = await front.start();
  sesEndpoint = `http://127.0.0.1:${front.port}`;
  viewerServer = await front.startViewer(0);
  viewerUrl = `http://127.0.0.1:${(viewerServer.address() as AddressInfo).port}`;
  // another project's stored mail, in the bucket folder SES receiving writes to
  writeLocalObject(
    join(dataDir, 's3'),
    INBOUND,
    'raw/project-two/message',
    Buffer.from(OTHER_PROJECT_MAIL),
    'message/rfc822',
  );
}, 30_000);

afterAll(async () => {
  await new Promise((resolve) => s3?.server.close(resolve));
  await new Promise((resolve) => kms?.server.close(resolve));
  await new Promise((resolve) => sesServer?.close(resolve));
  await new Promise((resolve) => viewerServer?.close(resolve));
  await sqs?.close();
  rmSync(base, { recursive: true, force: true });
});

interface Raw {
  status: number;
  body: string;
}

/** One HTTP request with its path exactly as given (fetch and URL would fold `..` and backslashes). */
function raw(
  endpoint: string,
  method: string,
  path: string,
  headers: Record<string, string> = {},
  body?: string,
): Promise<Raw> {
  const { hostname, port } = new URL(endpoint);
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      {
        host: hostname,
        port,
        method,
        path,
        headers: { ...headers, ...(body === undefined ? {} : { 'content-length': String(Buffer.byteLength(body)) }) },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('latin1') }));
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The path's query as the signer takes it. */
function queryOf(path: string): Record<string, string> {
  const query: Record<string, string> = {};
  for (const pair of (path.split('?')[1] ?? '').split('&').filter(Boolean)) {
    const [name, value = ''] = pair.split('=');
    query[decodeURIComponent(name)] = decodeURIComponent(value);
  }
  return query;
}

/** Headers signing `method path` for `service` with `signer` credentials, as an SDK would (S3: the path as given). */
async function signedHeaders(
  endpoint: string,
  method: string,
  path: string,
  options: {
    service?: string;
    as?: StandInCredentials;
    headers?: Record<string, string>;
    body?: string;
    date?: Date;
  } = {},
): Promise<Record<string, string>> {
  const service = options.service ?? 's3';
  const { host, hostname, port } = new URL(endpoint);
  const signer = new SignatureV4({
    service,
    region,
    credentials: options.as ?? credentials,
    sha256: Sha256,
    uriEscapePath: service !== 's3',
  });
  const payload: Record<string, string> =
    service === 's3'
      ? {
          'x-amz-content-sha256': createHash('sha256')
            .update(options.body ?? '')
            .digest('hex'),
        }
      : {};
  const signed = await signer.sign(
    {
      method,
      protocol: 'http:',
      hostname,
      port: Number(port),
      path: path.split('?')[0],
      query: queryOf(path),
      headers: { host, ...payload, ...options.headers },
      body: options.body,
    },
    { signingDate: options.date },
  );
  return signed.headers as Record<string, string>;
}

/** A presigned S3 URL's path and query, as the service's own presigner makes it (shared/platform/aws/s3.ts). */
async function presigned(
  method: string,
  path: string,
  expiresIn: number,
  options: { as?: StandInCredentials; date?: Date } = {},
): Promise<string> {
  const { host, hostname, port } = new URL(s3.endpoint);
  const signer = new SignatureV4({
    service: 's3',
    region,
    credentials: options.as ?? credentials,
    sha256: Sha256,
    uriEscapePath: false,
  });
  const signed = await signer.presign(
    {
      method,
      protocol: 'http:',
      hostname,
      port: Number(port),
      path,
      query: { 'x-id': method === 'GET' ? 'GetObject' : 'PutObject' },
      headers: { host, 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
    },
    { expiresIn, signingDate: options.date },
  );
  const query = Object.entries(signed.query ?? {})
    .map(([name, value]) => `${encodeURIComponent(name)}=${encodeURIComponent(String(value))}`)
    .join('&');
  return `${path}?${query}`;
}

const code = (answer: Raw) => /<Code>([^<]+)<\/Code>/.exec(answer.body)?.[1] ?? JSON.parse(answer.body || '{}').__type;

/** Nothing a refused request answers may hold what lies outside its bucket. */
function expectNothingLeaked(answer: Raw): void {
  expect(answer.body).not.toContain(SECRET_OUTSIDE);
  expect(answer.body).not.toContain(OTHER_PROJECT_MAIL);
  expect(Buffer.from(answer.body, 'latin1').includes(readFileSync(keyFile))).toBe(false);
}

describe("the runtime's credentials", () => {
  it('are random, kept 0600 under DATA_DIR and reused on the next start; another DATA_DIR gets its own', () => {
    const file = join(dataDir, CREDENTIALS_FILE);
    expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(credentials.accessKeyId).toMatch(/^LKIA[A-Z2-7]{16}$/);
    expect(credentials.secretAccessKey).toHaveLength(40);
    expect(standInCredentials(dataDir)).toEqual(credentials);
    const other = mkdtempSync(join(base, 'other-data-'));
    expect(standInCredentials(other).accessKeyId).not.toBe(credentials.accessKeyId);
  });

  it('are made again, not written through, when the file is a link to another file', () => {
    const other = mkdtempSync(join(base, 'linked-data-'));
    const target = join(outside, 'link-target.txt');
    writeFileSync(target, 'not credentials');
    symlinkSync(target, join(other, CREDENTIALS_FILE));
    standInCredentials(other);
    expect(readFileSync(target, 'utf8')).toBe('not credentials');
    expect(lstatSync(join(other, CREDENTIALS_FILE)).isSymbolicLink()).toBe(false);
    rmSync(target);
  });
});

describe('the local S3', () => {
  const depth = '..%2F'.repeat(12);
  const traversals: [string, string][] = [
    ['the finding: ..%2F in the bucket segment', `/x%2F..%2F..%2F..%2Foutside/secret.txt`],
    ['..%2F in the bucket segment, deep', `/${depth}tmp/secret.txt`],
    ['encoded .. in the key', `/${BUCKET}/..%2F..%2F..%2Foutside%2Fsecret.txt`],
    ['raw .. segments', `/${BUCKET}/../../../outside/secret.txt`],
    ['%2E%2E segments', `/${BUCKET}/%2E%2E/%2E%2E/%2E%2E/outside/secret.txt`],
    ['backslashes', `/${BUCKET}/..%5C..%5C..%5Coutside%5Csecret.txt`],
    ['raw backslashes', `/${BUCKET}/..\\..\\..\\outside\\secret.txt`],
    ['an absolute path as the key', `/${BUCKET}/%2F${encodeURIComponent(join(outside, 'secret.txt')).slice(3)}`],
    ['an absolute path as the bucket', `/${encodeURIComponent(outside)}/secret.txt`],
    ['a NUL in the key', `/${BUCKET}/raw%00/../../../outside/secret.txt`],
    ['the KMS key file through the bucket', `/${BUCKET}%2F..%2F..%2Fkms/${LOCAL_SECRETS_KEY_ID}.key`],
    ['the KMS key file through the key', `/${BUCKET}/..%2F..%2Fkms%2F${LOCAL_SECRETS_KEY_ID}.key`],
    ['the metadata folder as a bucket', `/.meta/${INBOUND}/raw/project-two/message.json`],
    ['another bucket through the key', `/${BUCKET}/..%2F${INBOUND}%2Fraw%2Fproject-two%2Fmessage`],
    ['a bucket of two dots', `/../${INBOUND}/raw/project-two/message`],
    ['a bucket with a dot segment inside', `/a..b/x`],
    ['an upper-case bucket', `/Email-Service-Content/x`],
    ['a key of one dot', `/${BUCKET}/.`],
  ];

  it.each(traversals)(
    'refuses %s, signed with the right credentials, before reading or writing any file',
    async (_, path) => {
      const before = outsideBuckets();
      const read = await raw(s3.endpoint, 'GET', path, await signedHeaders(s3.endpoint, 'GET', path));
      expect(read.status).toBeGreaterThanOrEqual(400);
      expect(read.status).toBeLessThan(500);
      expectNothingLeaked(read);
      const body = 'written by a neighbour';
      const written = await raw(
        s3.endpoint,
        'PUT',
        path,
        await signedHeaders(s3.endpoint, 'PUT', path, { body }),
        body,
      );
      expect(written.status).toBeGreaterThanOrEqual(400);
      const removed = await raw(s3.endpoint, 'DELETE', path, await signedHeaders(s3.endpoint, 'DELETE', path));
      expect(removed.status).toBeGreaterThanOrEqual(400);
      expect(outsideBuckets()).toEqual(before);
      expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET_OUTSIDE);
    },
  );

  it('decodes a key once: a double-encoded .. is a file of that literal name inside the bucket', async () => {
    const before = outsideBuckets();
    const path = `/${BUCKET}/%252E%252E%252F%252E%252E%252F%252E%252E%252Foutside%252Fsecret.txt`;
    const read = await raw(s3.endpoint, 'GET', path, await signedHeaders(s3.endpoint, 'GET', path));
    expect({ status: read.status, code: code(read) }).toEqual({ status: 404, code: 'NoSuchKey' });
    const written = await raw(
      s3.endpoint,
      'PUT',
      path,
      await signedHeaders(s3.endpoint, 'PUT', path, { body: 'literal' }),
      'literal',
    );
    expect(written.status).toBe(200);
    expect(readFileSync(join(dataDir, 's3', BUCKET, '%2E%2E%2F%2E%2E%2F%2E%2E%2Foutside%2Fsecret.txt'), 'utf8')).toBe(
      'literal',
    );
    expect(outsideBuckets()).toEqual(before);
    expect(readFileSync(join(outside, 'secret.txt'), 'utf8')).toBe(SECRET_OUTSIDE);
  });

  it('serves its buckets only: another valid bucket name is NoSuchBucket, and no folder is made for it', async () => {
    const path = '/kms/5ec7e75a-0000-4000-8000-000000000001.key';
    const read = await raw(s3.endpoint, 'GET', path, await signedHeaders(s3.endpoint, 'GET', path));
    expect({ status: read.status, code: code(read) }).toEqual({ status: 404, code: 'NoSuchBucket' });
    const written = await raw(
      s3.endpoint,
      'PUT',
      '/planted/x',
      await signedHeaders(s3.endpoint, 'PUT', '/planted/x', { body: 'x' }),
      'x',
    );
    expect({ status: written.status, code: code(written) }).toEqual({ status: 404, code: 'NoSuchBucket' });
    expect(existsSync(join(dataDir, 's3', 'planted'))).toBe(false);
  });

  it('answers S3 bucket-name and key errors by name', async () => {
    const path = '/x%2F..%2F..%2Foutside/secret.txt';
    expect(code(await raw(s3.endpoint, 'GET', path, await signedHeaders(s3.endpoint, 'GET', path)))).toBe(
      'InvalidBucketName',
    );
    const key = `/${BUCKET}/..%2Fx`;
    expect(code(await raw(s3.endpoint, 'GET', key, await signedHeaders(s3.endpoint, 'GET', key)))).toBe(
      'InvalidArgument',
    );
  });

  it("serves another project's mail only to a signed request, and refuses unsigned, forged and skewed ones with S3's codes", async () => {
    const path = `/${INBOUND}/raw/project-two/message`;
    expect(await raw(s3.endpoint, 'GET', path, await signedHeaders(s3.endpoint, 'GET', path))).toEqual({
      status: 200,
      body: OTHER_PROJECT_MAIL,
    });
    const refused: [string, Record<string, string>, number, string][] = [
      ['unsigned', {}, 403, 'AccessDenied'],
      [
        'any Authorization header',
        { authorization: 'AWS4-HMAC-SHA256 Credential=anything' },
        400,
        'AuthorizationHeaderMalformed',
      ],
      [
        'the old public local/local',
        await signedHeaders(s3.endpoint, 'GET', path, { as: { accessKeyId: 'local', secretAccessKey: 'local' } }),
        403,
        'InvalidAccessKeyId',
      ],
      [
        'the right key id, another secret',
        await signedHeaders(s3.endpoint, 'GET', path, { as: { ...credentials, secretAccessKey: 'x'.repeat(40) } }),
        403,
        'SignatureDoesNotMatch',
      ],
      [
        'signed for another key',
        await signedHeaders(s3.endpoint, 'GET', `/${INBOUND}/raw/other`),
        403,
        'SignatureDoesNotMatch',
      ],
      [
        'signed 16 minutes ago',
        await signedHeaders(s3.endpoint, 'GET', path, { date: new Date(Date.now() - 16 * 60_000) }),
        403,
        'RequestTimeTooSkewed',
      ],
      [
        'signed 16 minutes ahead',
        await signedHeaders(s3.endpoint, 'GET', path, { date: new Date(Date.now() + 16 * 60_000) }),
        403,
        'RequestTimeTooSkewed',
      ],
      [
        'signed for SQS',
        await signedHeaders(s3.endpoint, 'GET', path, { service: 'sqs' }),
        400,
        'AuthorizationHeaderMalformed',
      ],
    ];
    for (const [what, headers, status, errorCode] of refused) {
      const answer = await raw(s3.endpoint, 'GET', path, headers);
      expect({ what, status: answer.status, code: code(answer) }).toEqual({ what, status, code: errorCode });
      expectNothingLeaked(answer);
    }
  });

  it('refuses a body that is not the one the signature declares', async () => {
    const path = `/${BUCKET}/declared`;
    const headers = await signedHeaders(s3.endpoint, 'PUT', path, { body: 'signed body' });
    const answer = await raw(s3.endpoint, 'PUT', path, headers, 'another body');
    expect({ status: answer.status, code: code(answer) }).toEqual({ status: 400, code: 'XAmzContentSHA256Mismatch' });
    expect(existsSync(join(dataDir, 's3', BUCKET, 'declared'))).toBe(false);
  });

  it('serves a presigned URL as given, and refuses it tampered with, forged, or replayed after its expiry', async () => {
    const path = `/${INBOUND}/raw/project-two/message`;
    const url = await presigned('GET', path, 600);
    expect(await raw(s3.endpoint, 'GET', url)).toEqual({ status: 200, body: OTHER_PROJECT_MAIL });
    const refused: [string, string, string, number, string][] = [
      ['another key', 'GET', url.replace('project-two/message', 'project-two/other'), 403, 'SignatureDoesNotMatch'],
      [
        'a traversal key',
        'GET',
        url.replace('raw/project-two/message', 'raw/..%2F..%2F..%2Foutside%2Fsecret.txt'),
        403,
        'SignatureDoesNotMatch',
      ],
      ['PUT with a GET URL', 'PUT', url, 403, 'SignatureDoesNotMatch'],
      ['DELETE with a GET URL', 'DELETE', url, 403, 'SignatureDoesNotMatch'],
      ['a longer expiry', 'GET', url.replace('X-Amz-Expires=600', 'X-Amz-Expires=6000'), 403, 'SignatureDoesNotMatch'],
      [
        'another signature',
        'GET',
        url.replace(/X-Amz-Signature=[0-9a-f]{64}/, `X-Amz-Signature=${'0'.repeat(64)}`),
        403,
        'SignatureDoesNotMatch',
      ],
      ['no signature', 'GET', url.replace(/&?X-Amz-Signature=[0-9a-f]{64}/, ''), 403, 'AccessDenied'],
      ['two signatures', 'GET', `${url}&X-Amz-Signature=${'0'.repeat(64)}`, 400, 'AuthorizationHeaderMalformed'],
      [
        'forged with local/local',
        'GET',
        await presigned('GET', path, 600, { as: { accessKeyId: 'local', secretAccessKey: 'local' } }),
        403,
        'InvalidAccessKeyId',
      ],
      [
        'replayed after its expiry',
        'GET',
        await presigned('GET', path, 60, { date: new Date(Date.now() - 120_000) }),
        403,
        'AccessDenied',
      ],
      [
        'dated an hour ahead',
        'GET',
        await presigned('GET', path, 600, { date: new Date(Date.now() + 3600_000) }),
        403,
        'RequestTimeTooSkewed',
      ],
      [
        'valid for more than 7 days',
        'GET',
        url.replace('X-Amz-Expires=600', 'X-Amz-Expires=604801'),
        400,
        'AuthorizationHeaderMalformed',
      ],
    ];
    for (const [what, method, tampered, status, errorCode] of refused) {
      const answer = await raw(s3.endpoint, method, tampered, {}, method === 'PUT' ? 'overwritten' : undefined);
      expect({ what, status: answer.status, code: code(answer) }).toEqual({ what, status, code: errorCode });
      expectNothingLeaked(answer);
    }
    expect(readFileSync(join(dataDir, 's3', INBOUND, 'raw', 'project-two', 'message'), 'utf8')).toBe(
      OTHER_PROJECT_MAIL,
    );
  });

  it("keeps serving the SDK's signed calls for keys with spaces, plus signs and non-ASCII letters", async () => {
    const client = new S3Client({ endpoint: s3.endpoint, region, credentials, forcePathStyle: true });
    const Key = 'uploads/a b+c/ü ñ (1).txt';
    await client.send(new PutObjectCommand({ Bucket: BUCKET, Key, Body: 'odd key', ContentType: 'text/plain' }));
    expect(await (await client.send(new GetObjectCommand({ Bucket: BUCKET, Key }))).Body!.transformToString()).toBe(
      'odd key',
    );
    client.destroy();
  });

  it('takes a presigned PUT for its own key only', async () => {
    const url = await presigned('PUT', `/${BUCKET}/uploads/u1`, 600);
    expect((await raw(s3.endpoint, 'PUT', url, {}, 'upload')).status).toBe(200);
    expect(readFileSync(join(dataDir, 's3', BUCKET, 'uploads', 'u1'), 'utf8')).toBe('upload');
    const elsewhere = url.replace('uploads/u1', 'uploads/..%2F..%2F..%2F..%2Foutside%2Fplanted');
    expect((await raw(s3.endpoint, 'PUT', elsewhere, {}, 'planted')).status).toBe(403);
    expect(existsSync(join(outside, 'planted'))).toBe(false);
  });
});

describe('the local KMS', () => {
  const target = { 'x-amz-target': 'TrentService.GenerateDataKey', 'content-type': 'application/x-amz-json-1.1' };
  const body = () => JSON.stringify({ KeyId: kms.keyArn, KeySpec: 'AES_256' });

  it('answers its own credentials, through the SDK', async () => {
    const client = new KMSClient({ endpoint: kms.endpoint, region, credentials });
    expect(
      (await client.send(new GenerateDataKeyCommand({ KeyId: kms.keyArn, KeySpec: 'AES_256' }))).Plaintext,
    ).toHaveLength(32);
    client.destroy();
  });

  it("refuses unsigned, forged and skewed requests with KMS's codes, and gives no key", async () => {
    const refused: [string, Record<string, string>, number, string][] = [
      ['unsigned', target, 403, 'MissingAuthenticationTokenException'],
      [
        'another key id',
        await signedHeaders(kms.endpoint, 'POST', '/', {
          service: 'kms',
          as: { accessKeyId: 'anyone', secretAccessKey: 'guessed' },
          headers: target,
          body: body(),
        }),
        400,
        'UnrecognizedClientException',
      ],
      [
        'another secret',
        await signedHeaders(kms.endpoint, 'POST', '/', {
          service: 'kms',
          as: { ...credentials, secretAccessKey: 'y'.repeat(40) },
          headers: target,
          body: body(),
        }),
        400,
        'InvalidSignatureException',
      ],
      [
        'signed 16 minutes ago',
        await signedHeaders(kms.endpoint, 'POST', '/', {
          service: 'kms',
          headers: target,
          body: body(),
          date: new Date(Date.now() - 16 * 60_000),
        }),
        400,
        'InvalidSignatureException',
      ],
      [
        'signed for another body',
        await signedHeaders(kms.endpoint, 'POST', '/', { service: 'kms', headers: target, body: '{}' }),
        400,
        'InvalidSignatureException',
      ],
    ];
    for (const [what, headers, status, errorCode] of refused) {
      const answer = await raw(kms.endpoint, 'POST', '/', headers, body());
      expect({ what, status: answer.status, code: code(answer) }).toEqual({ what, status, code: errorCode });
      expect(answer.body).not.toContain('Plaintext');
    }
  });

  it('never takes a file name from a request: a key id that would leave its folder is an unknown key', async () => {
    const input = JSON.stringify({ KeyId: `../../outside/secret.txt`, KeySpec: 'AES_256' });
    const answer = await raw(
      kms.endpoint,
      'POST',
      '/',
      await signedHeaders(kms.endpoint, 'POST', '/', { service: 'kms', headers: target, body: input }),
      input,
    );
    expect({ status: answer.status, code: code(answer) }).toEqual({ status: 400, code: 'NotFoundException' });
    expectNothingLeaked(answer);
  });
});

describe('the local SQS', () => {
  const target = { 'x-amz-target': 'AmazonSQS.ListQueues', 'content-type': 'application/x-amz-json-1.0' };

  it('answers its own credentials, and refuses unsigned, forged and skewed requests with its codes', async () => {
    const client = new SQSClient({ endpoint: sqs.endpoint, region, credentials });
    await client.send(new CreateQueueCommand({ QueueName: 'hostile-ok' }));
    expect((await client.send(new ListQueuesCommand({}))).QueueUrls).toEqual([
      `${sqs.endpoint}/000000000000/hostile-ok`,
    ]);
    client.destroy();
    const refused: [string, Record<string, string>, number, string][] = [
      ['unsigned', target, 403, 'com.amazon.coral.service#MissingAuthenticationToken'],
      [
        'another key id',
        await signedHeaders(sqs.endpoint, 'POST', '/', {
          service: 'sqs',
          as: { accessKeyId: 'local', secretAccessKey: 'local' },
          headers: target,
          body: '{}',
        }),
        403,
        'com.amazon.coral.service#InvalidClientTokenId',
      ],
      [
        'another secret',
        await signedHeaders(sqs.endpoint, 'POST', '/', {
          service: 'sqs',
          as: { ...credentials, secretAccessKey: 'z'.repeat(40) },
          headers: target,
          body: '{}',
        }),
        403,
        'com.amazon.coral.service#SignatureDoesNotMatch',
      ],
      [
        'signed 16 minutes ago',
        await signedHeaders(sqs.endpoint, 'POST', '/', {
          service: 'sqs',
          headers: target,
          body: '{}',
          date: new Date(Date.now() - 16 * 60_000),
        }),
        400,
        'com.amazon.coral.service#RequestExpired',
      ],
    ];
    for (const [what, headers, status, errorCode] of refused) {
      const answer = await raw(sqs.endpoint, 'POST', '/', headers, '{}');
      expect({ what, status: answer.status, code: code(answer) }).toEqual({ what, status, code: errorCode });
      expect(answer.body).not.toContain('hostile-ok');
    }
  });

  it('the SDK sees the refusals by their names', async () => {
    const forged = new SQSClient({
      endpoint: sqs.endpoint,
      region,
      credentials: { ...credentials, secretAccessKey: 'z'.repeat(40) },
      maxAttempts: 1,
    });
    await expect(forged.send(new ListQueuesCommand({}))).rejects.toMatchObject({ name: 'SignatureDoesNotMatch' });
    forged.destroy();
  });

  it("takes only SQS's queue names, and writes nothing but its journal", async () => {
    const client = new SQSClient({ endpoint: sqs.endpoint, region, credentials, maxAttempts: 1 });
    const before = outsideBuckets();
    for (const name of ['../../outside/q', '..', 'a/b', 'a\\b', 'a\u0000b', '/tmp/q', 'x'.repeat(81), '', 'q.fifo']) {
      await expect(client.send(new CreateQueueCommand({ QueueName: name }))).rejects.toMatchObject({
        $metadata: { httpStatusCode: 400 },
      });
    }
    client.destroy();
    const changed = Object.keys(outsideBuckets()).filter((path) => before[path] === undefined);
    expect(changed.every((path) => path.startsWith(join('data', 'sqs')))).toBe(true);
    expect(readdirSync(outside).sort()).toEqual(['secret.txt']);
  });
});

describe('the local SES endpoint', () => {
  it('answers its own credentials, and refuses unsigned, forged and skewed requests with SES error types', async () => {
    const client = new SESv2Client({ endpoint: sesEndpoint, region, credentials });
    expect((await client.send(new GetAccountCommand({}))).SendingEnabled).toBe(true);
    client.destroy();
    const path = '/v2/email/account';
    const refused: [string, Record<string, string>, string][] = [
      ['unsigned', {}, 'MissingAuthenticationTokenException'],
      [
        'another key id',
        await signedHeaders(sesEndpoint, 'GET', path, {
          service: 'ses',
          as: { accessKeyId: 'local', secretAccessKey: 'local' },
        }),
        'UnrecognizedClientException',
      ],
      [
        'another secret',
        await signedHeaders(sesEndpoint, 'GET', path, {
          service: 'ses',
          as: { ...credentials, secretAccessKey: 'w'.repeat(40) },
        }),
        'InvalidSignatureException',
      ],
      [
        'signed 16 minutes ago',
        await signedHeaders(sesEndpoint, 'GET', path, { service: 'ses', date: new Date(Date.now() - 16 * 60_000) }),
        'InvalidSignatureException',
      ],
      [
        'signed for another path',
        await signedHeaders(sesEndpoint, 'GET', '/v2/email/identities', { service: 'ses' }),
        'InvalidSignatureException',
      ],
    ];
    for (const [what, headers, errorCode] of refused) {
      const answer = await raw(sesEndpoint, 'GET', path, headers);
      expect({ what, status: answer.status, code: code(answer) }).toEqual({ what, status: 403, code: errorCode });
      expect(answer.body).not.toContain('SendQuota');
    }
    // its local-only routes too
    const stats = await raw(sesEndpoint, 'GET', '/_local/send-stats');
    expect({ status: stats.status, code: code(stats) }).toEqual({
      status: 403,
      code: 'MissingAuthenticationTokenException',
    });
  });

  it("the mail viewer's port (a browser's page, unsigned) serves no SES API", async () => {
    const attempts: [string, string, string?][] = [
      ['GET', '/v2/email/account'],
      ['POST', '/v2/email/identities', JSON.stringify({ EmailIdentity: 'attacker.example' })],
      [
        'POST',
        '/v2/email/outbound-emails',
        JSON.stringify({ Content: { Simple: { Subject: { Data: 'x' }, Body: { Text: { Data: 'x' } } } } }),
      ],
      ['POST', '/', 'Action=SendEmail'],
      ['GET', '/_local/send-stats'],
      ['GET', '/V2/Email/Account/'],
    ];
    for (const [method, path, body] of attempts) {
      const answer = await raw(
        viewerUrl,
        method,
        path,
        { authorization: 'AWS4-HMAC-SHA256 Credential=x', 'content-type': 'application/json' },
        body,
      );
      expect({ method, path, status: answer.status }).toEqual({ method, path, status: 404 });
    }
    const client = new SESv2Client({ endpoint: sesEndpoint, region, credentials });
    await expect(client.send(new GetEmailIdentityCommand({ EmailIdentity: 'attacker.example' }))).rejects.toMatchObject(
      { name: 'NotFoundException' },
    );
    // a signed request whose path carries encoded characters (the SDK encodes them once more to sign) is still its own
    await expect(
      client.send(new GetEmailIdentityCommand({ EmailIdentity: 'a+b c@attacker.example' })),
    ).rejects.toMatchObject({ name: 'NotFoundException' });
    client.destroy();
  });
});
