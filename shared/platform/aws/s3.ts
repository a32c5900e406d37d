/**
 * The service's two buckets: the inbound mail bucket (lib/inbound.ts: raw messages as SES stored
 * them, attachments and large bodies as the inbound worker stores them, and time-limited download
 * URLs) and the content bucket (lib/constructs/content-bucket.ts: each sent email's content,
 * written once, shared/emails/content.ts; and contact import files, put by the request or by the
 * client through a presigned PUT, shared/audience/imports.ts). Every call names its bucket (`inbound` by default).
 *
 * Why not `@aws-sdk/client-s3`: that client and its presigner add about 130 KB to a bundle that
 * already carries the DynamoDB client (measured with the project's esbuild settings: DynamoDB +
 * S3 + presigner = 475 KB before any of our code), over the 450 KB budget of DESIGN.md. These are
 * the S3 REST calls the service makes (Get, ranged Get, Head, Put, Delete, presigned GET and PUT), signed with the SDK's own SigV4 signer
 * (`@smithy/signature-v4`, which the DynamoDB client bundles anyway) and the DynamoDB client's
 * credential chain; test/unit/inbound-objects.test.ts checks every request and URL against what
 * the real `@aws-sdk/client-s3` and `@aws-sdk/s3-request-presigner` produce.
 *
 * The buckets are `INBOUND_BUCKET` and `CONTENT_BUCKET`; the endpoint is the SDK's own `AWS_ENDPOINT_URL_S3` when set
 * (path-style, as S3-compatible endpoints expect: the local runtime's stand-in), else the
 * regional virtual-hosted endpoint. No code here knows where it runs.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import type { HttpRequest } from '@smithy/types';
import { checkAwsCall } from './call-guard';
import { Sha256 } from './sha256';
import { awsRegion } from './region';
import { AwsCallError, signingCredentials } from './signed-calls';

/** How long a download URL works. */
export const DOWNLOAD_URL_TTL_SECONDS = 60 * 60;

export class ObjectStoreError extends AwsCallError {
  override name = 'ObjectStoreError';
}

let signer: SignatureV4 | undefined;
function s3Signer(): SignatureV4 {
  // As the S3 client configures it: the path is signed as sent (no double encoding).
  signer ??= new SignatureV4({
    service: 's3',
    region: awsRegion(),
    credentials: signingCredentials,
    sha256: Sha256,
    uriEscapePath: false,
    applyChecksum: true,
  });
  return signer;
}

/** Which of the service's buckets a call is for. */
export type BucketKind = 'inbound' | 'content';
/** The environment variable that names each bucket, on AWS and locally. */
export const BUCKET_VARIABLES: Record<BucketKind, string> = { inbound: 'INBOUND_BUCKET', content: 'CONTENT_BUCKET' };

export function bucketName(kind: BucketKind = 'inbound'): string {
  const name = process.env[BUCKET_VARIABLES[kind]];
  if (!name) throw new Error(`${BUCKET_VARIABLES[kind]} is not set`);
  return name;
}

/** S3's key encoding: every segment URI-encoded, `/` kept, and the characters encodeURIComponent leaves (`!'()*`) too. */
const encodeKey = (key: string) =>
  key
    .split('/')
    .map((segment) =>
      encodeURIComponent(segment).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`),
    )
    .join('/');

function request(
  bucket: string,
  method: string,
  key: string,
  query: Record<string, string> = {},
  headers: Record<string, string> = {},
  body?: Uint8Array,
): HttpRequest {
  const custom = process.env.AWS_ENDPOINT_URL_S3;
  const base = custom ? new URL(custom) : new URL(`https://${bucket}.s3.${awsRegion()}.amazonaws.com`);
  const basePath = base.pathname.replace(/\/$/, '');
  const port = base.port ? Number(base.port) : undefined;
  return {
    method,
    protocol: base.protocol,
    hostname: base.hostname,
    port,
    path: custom ? `${basePath}/${bucket}/${encodeKey(key)}` : `/${encodeKey(key)}`,
    query,
    headers: { host: base.host, ...headers },
    body,
  };
}

function urlOf(req: HttpRequest): string {
  const query = Object.entries(req.query ?? {})
    .flatMap(([name, value]) =>
      [value].flat().map((v) => `${encodeURIComponent(name)}=${encodeURIComponent(String(v))}`),
    )
    .join('&');
  return `${req.protocol}//${req.hostname}${req.port ? `:${req.port}` : ''}${req.path}${query ? `?${query}` : ''}`;
}

/** `operation`: the S3 API call, for the local runtime's check of the function's needs (platform/aws/call-guard.ts). */
async function send(operation: string, bucket: string, key: string, req: HttpRequest): Promise<Response> {
  checkAwsCall({ service: 's3', operation, input: { Bucket: bucket, Key: key } });
  const signed = await s3Signer().sign(req);
  const headers = { ...signed.headers };
  delete headers.host; // fetch sets it from the URL
  return fetch(urlOf(signed), {
    method: signed.method,
    headers,
    body: signed.body as Uint8Array | undefined,
    signal: AbortSignal.timeout(60_000),
  });
}

async function failure(response: Response, what: string): Promise<ObjectStoreError> {
  const text = await response.text().catch(() => '');
  const code = /<Code>([^<]+)<\/Code>/.exec(text)?.[1] ?? `HTTP${response.status}`;
  return new ObjectStoreError(response.status, code, `${what}: ${response.status} ${code}`);
}

/** The object's bytes, or undefined when there is no such object. */
export async function getObject(key: string, kind: BucketKind = 'inbound'): Promise<Buffer | undefined> {
  const bucket = bucketName(kind);
  const response = await send('GetObject', bucket, key, request(bucket, 'GET', key, { 'x-id': 'GetObject' }));
  if (response.status === 404) {
    await response.body?.cancel();
    return undefined;
  }
  if (!response.ok) throw await failure(response, `GetObject ${key}`);
  return Buffer.from(await response.arrayBuffer());
}

/** Bytes of an object one ranged GET of `getObjectStream` fetches: few requests for a large file, little held at a time. */
const READ_CHUNK_BYTES = 4 * 1024 * 1024;

/**
 * The object's bytes from `from` on (`length` of them at most) as a stream, or undefined when there
 * is no such object. The stream fetches one range of READ_CHUNK_BYTES at a time, the next only when
 * its reader wants more: a reader may take minutes over a large object without a connection held
 * open meanwhile (S3 drops a connection not read from for a while). `ifMatch`: the ETag the object
 * must still have, at every range (`ObjectStoreError` with code `PreconditionFailed` when it changed).
 */
export async function getObjectStream(
  key: string,
  kind: BucketKind,
  options: { from?: number; length?: number; ifMatch?: string } = {},
): Promise<ReadableStream<Uint8Array> | undefined> {
  const bucket = bucketName(kind);
  const until = options.length === undefined ? Number.POSITIVE_INFINITY : (options.from ?? 0) + options.length;
  let next = options.from ?? 0;
  let size = Number.POSITIVE_INFINITY;
  /** The next range's bytes; undefined when the object is not there. */
  const range = async (): Promise<Uint8Array | undefined> => {
    const last = Math.min(until, next + READ_CHUNK_BYTES) - 1;
    const headers: Record<string, string> = { range: `bytes=${next}-${last}` };
    if (options.ifMatch) headers['if-match'] = options.ifMatch;
    const response = await send(
      'GetObject',
      bucket,
      key,
      request(bucket, 'GET', key, { 'x-id': 'GetObject' }, headers),
    );
    if (response.status === 404 || response.status === 416) {
      // 416: the range starts at the object's end, so there is nothing after it
      await response.body?.cancel();
      if (response.status === 416) size = next;
      return response.status === 404 ? undefined : new Uint8Array();
    }
    if (!response.ok) throw await failure(response, `GetObject ${key}`);
    const bytes = new Uint8Array(await response.arrayBuffer());
    size = Number(/\/(\d+)$/.exec(response.headers.get('content-range') ?? '')?.[1] ?? next + bytes.length);
    next += bytes.length;
    return bytes;
  };
  const first = await range();
  if (!first) return undefined;
  return new ReadableStream<Uint8Array>(
    {
      start: (controller) => {
        if (first.length) controller.enqueue(first);
      },
      pull: async (controller) => {
        if (next >= Math.min(size, until)) return controller.close();
        const bytes = await range();
        if (!bytes) throw new ObjectStoreError(404, 'NoSuchKey', `GetObject ${key}: gone while it was read`);
        if (bytes.length === 0) return controller.close();
        controller.enqueue(bytes);
      },
    },
    { highWaterMark: 1 },
  );
}

/** The object's size and ETag, or undefined when there is no such object. */
export async function headObject(
  key: string,
  kind: BucketKind = 'inbound',
): Promise<{ size: number; etag: string } | undefined> {
  const bucket = bucketName(kind);
  const response = await send('HeadObject', bucket, key, request(bucket, 'HEAD', key));
  if (response.status === 404) return undefined;
  if (!response.ok)
    throw new ObjectStoreError(response.status, `HTTP${response.status}`, `HeadObject ${key}: ${response.status}`);
  return { size: Number(response.headers.get('content-length') ?? 0), etag: response.headers.get('etag') ?? '' };
}

export async function putObject(
  key: string,
  body: Uint8Array,
  contentType: string,
  kind: BucketKind = 'inbound',
): Promise<void> {
  const bucket = bucketName(kind);
  const response = await send(
    'PutObject',
    bucket,
    key,
    request(
      bucket,
      'PUT',
      key,
      { 'x-id': 'PutObject' },
      { 'content-type': contentType, 'content-length': String(body.byteLength) },
      body,
    ),
  );
  if (!response.ok) throw await failure(response, `PutObject ${key}`);
  await response.body?.cancel();
}

/** Deletes the object; deleting one that is not there succeeds, as in S3. */
export async function deleteObject(key: string, kind: BucketKind = 'inbound'): Promise<void> {
  const bucket = bucketName(kind);
  const response = await send('DeleteObject', bucket, key, request(bucket, 'DELETE', key, { 'x-id': 'DeleteObject' }));
  if (!response.ok && response.status !== 404) throw await failure(response, `DeleteObject ${key}`);
  await response.body?.cancel();
}

export interface DownloadUrl {
  download_url: string;
  expires_at: string;
}

/**
 * A presigned GET (SigV4 query signing, unsigned payload, as `getSignedUrl` makes it). The
 * response headers S3 sends can be set through the URL (`response-content-type`,
 * `response-content-disposition`), so a browser saves an attachment under its own name.
 */
export async function presignGet(
  key: string,
  options: {
    expiresInSeconds?: number;
    contentType?: string;
    contentDisposition?: string;
    now?: Date;
    bucket?: BucketKind;
  } = {},
): Promise<DownloadUrl> {
  const query: Record<string, string> = {};
  if (options.contentDisposition) query['response-content-disposition'] = options.contentDisposition;
  if (options.contentType) query['response-content-type'] = options.contentType;
  const { url, expires_at } = await presign('GET', key, query, {
    ...options,
    expiresInSeconds: options.expiresInSeconds ?? DOWNLOAD_URL_TTL_SECONDS,
  });
  return { download_url: url, expires_at };
}

/** A URL for `method` on `key` (the x-id of its operation added to `query`), signed for `expiresInSeconds` from `now`; unsigned payload. */
async function presign(
  method: 'GET' | 'PUT',
  key: string,
  query: Record<string, string>,
  options: { expiresInSeconds: number; now?: Date; bucket?: BucketKind; contentLength?: number },
): Promise<{ url: string; expires_at: string }> {
  const bucket = bucketName(options.bucket);
  const operation = method === 'GET' ? 'GetObject' : 'PutObject';
  const now = options.now ?? new Date(); // machine time: the SigV4 signing date, which S3 checks against its own clock
  // A presigned URL works only if its signer may do the operation: checked when it is made.
  checkAwsCall({ service: 's3', operation, input: { Bucket: bucket, Key: key } });
  const req = request(
    bucket,
    method,
    key,
    { ...query, 'x-id': operation },
    { 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' },
  );
  // a signed header: S3 refuses (403) a PUT whose Content-Length is not this one
  if (options.contentLength !== undefined) req.headers['content-length'] = String(options.contentLength);
  const presigned = await s3Signer().presign(req, {
    expiresIn: options.expiresInSeconds,
    signingDate: now,
    unsignableHeaders: new Set(['content-type']),
  });
  return { url: urlOf(presigned), expires_at: new Date(now.getTime() + options.expiresInSeconds * 1000).toISOString() };
}

export interface UploadUrl {
  upload_url: string;
  expires_at: string;
}

/**
 * A presigned PUT (SigV4 query signing, unsigned payload, as `getSignedUrl` makes it for a
 * PutObjectCommand): whoever holds the URL may write this one key until it expires, with any content
 * type. With `contentLength` (as `getSignedUrl` for a PutObjectCommand with ContentLength) the
 * Content-Length header is signed: S3 takes only a body of exactly that many bytes, so the size is
 * bounded at the signature (S3 itself allows 5 GB a PUT).
 */
export async function presignPut(
  key: string,
  options: { expiresInSeconds: number; now?: Date; bucket?: BucketKind; contentLength?: number },
): Promise<UploadUrl> {
  const { url, expires_at } = await presign('PUT', key, {}, options);
  return { upload_url: url, expires_at };
}

/** `attachment; filename="..."` with an RFC 6266 `filename*` for names that are not plain ASCII. */
export function contentDisposition(kind: 'attachment' | 'inline', filename: string | null): string {
  if (!filename) return kind;
  const ascii = filename.replace(/[^\x20-\x7e]/g, '_').replace(/["\\]/g, '_');
  const encoded = encodeURIComponent(filename).replace(
    /['()*]/g,
    (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`,
  );
  return ascii === filename
    ? `${kind}; filename="${ascii}"`
    : `${kind}; filename="${ascii}"; filename*=UTF-8''${encoded}`;
}
