/**
 * The local stand-in for the service's buckets: just enough of the S3 REST API (path-style
 * PutObject, GetObject with `Range` and `If-Match`, HeadObject, DeleteObject, and presigned GETs and
 * PUTs) over HTTP on loopback, serving a folder: `<root>/<bucket>/<key>`, with each object's content
 * type and ETag (its MD5, as S3's for a single PUT) beside it in `<root>/.meta/<bucket>/<key>.json`.
 * Handlers reach it through `AWS_ENDPOINT_URL_S3`, like every other stand-in, and the download and
 * upload URLs they hand out point here.
 *
 * Every request is authenticated as S3 authenticates it (./sigv4.ts), against the runtime's own
 * generated credentials (./credentials.ts): signed in its `Authorization` header (the handlers'
 * calls; `X-Amz-Date` within 15 minutes, else `RequestTimeTooSkewed`; a declared
 * `x-amz-content-sha256` must be the body's, else `XAmzContentSHA256Mismatch`) or presigned (the URLs
 * users get: past `X-Amz-Date` + `X-Amz-Expires` it is `AccessDenied`). Another key id is
 * `InvalidAccessKeyId`, a signature that does not match (a URL whose method, key, query or expiry was
 * changed) `SignatureDoesNotMatch`, a request with neither `AccessDenied`.
 *
 * Names are checked after decoding, before any file is touched: a bucket is S3's bucket name (3-63
 * of `a-z 0-9 . -`, starting and ending with a letter or digit, no `..`), a key has no empty, `.` or
 * `..` segment, no NUL and no backslash, at most 1,024 bytes; and the resolved path of the object and
 * of its metadata must lie inside that bucket's folder (`InvalidBucketName`, `InvalidArgument`).
 * The local SMTP server writes raw messages straight into the folder (`writeLocalObject`), as SES
 * writes them into the bucket.
 */
import { createHash } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, join, resolve, sep } from 'node:path';
import type { StandInCredentials } from './credentials';
import { type SignatureVerdict, verifySignature } from './sigv4';

export interface LocalS3 {
  server: Server;
  endpoint: string;
  root: string;
}

/** S3's bucket-name grammar (general purpose buckets). */
const BUCKET_NAME = /^[a-z0-9][a-z0-9.-]{1,61}[a-z0-9]$/;
export const validBucketName = (bucket: string) =>
  BUCKET_NAME.test(bucket) && !bucket.includes('..') && !/^\d+\.\d+\.\d+\.\d+$/.test(bucket);

/** A decoded key the folder can hold: no empty, `.` or `..` segment, no NUL, no backslash, at most 1,024 bytes. */
export const validObjectKey = (key: string) =>
  key.length > 0 &&
  Buffer.byteLength(key) <= 1024 &&
  !/[\0\\]/.test(key) &&
  key.split('/').every((segment) => segment !== '' && segment !== '.' && segment !== '..');

/** Where an object (or its metadata) lives in the folder; undefined for a name that is not S3's or a path that would leave its bucket's folder. */
function objectPath(root: string, bucket: string, key: string, meta = false): string | undefined {
  if (!validBucketName(bucket) || !validObjectKey(key)) return undefined;
  const base = resolve(meta ? join(root, '.meta', bucket) : join(root, bucket));
  const path = resolve(base, `${key}${meta ? '.json' : ''}`);
  return path.startsWith(base + sep) ? path : undefined;
}

/** Writes an object as PutObject would (for the SES stand-in, which writes to the bucket directly). */
export function writeLocalObject(
  root: string,
  bucket: string,
  key: string,
  body: Uint8Array,
  contentType = 'application/octet-stream',
): void {
  const path = objectPath(root, bucket, key);
  const meta = objectPath(root, bucket, key, true);
  if (!path || !meta) throw new Error(`invalid object key ${key}`);
  mkdirSync(dirname(path), { recursive: true });
  mkdirSync(dirname(meta), { recursive: true });
  writeFileSync(path, body);
  writeFileSync(meta, JSON.stringify({ contentType, etag: `"${createHash('md5').update(body).digest('hex')}"` }));
}

function xmlError(response: ServerResponse, status: number, code: string, message: string): void {
  response.writeHead(status, { 'content-type': 'application/xml' });
  response.end(
    `<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`,
  );
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** The payload of an `aws-chunked` body (`<hex size>;chunk-signature=...\r\n<data>\r\n ... 0\r\n<trailers>`). */
function decodeAwsChunked(body: Buffer): Buffer {
  const parts: Buffer[] = [];
  let offset = 0;
  while (offset < body.length) {
    const lineEnd = body.indexOf('\r\n', offset);
    if (lineEnd < 0) break;
    const size = parseInt(body.subarray(offset, lineEnd).toString('latin1').split(';')[0], 16);
    if (!Number.isFinite(size) || size === 0) break;
    parts.push(body.subarray(lineEnd + 2, lineEnd + 2 + size));
    offset = lineEnd + 2 + size + 2;
  }
  return Buffer.concat(parts);
}

/** The object's ETag: the MD5 its metadata recorded, else (written before that) one from its size and time. */
function etagOf(meta: { etag?: string }, size: number, modified: Date): string {
  return meta.etag ?? `"${size.toString(16)}-${modified.getTime().toString(16)}"`;
}

/** The stand-in's answer to a signature that does not hold: S3's own code and status. */
const AUTH_ERRORS: Record<Exclude<SignatureVerdict, { ok: true }>['reason'], [number, string]> = {
  missing: [403, 'AccessDenied'],
  malformed: [400, 'AuthorizationHeaderMalformed'],
  'unknown key': [403, 'InvalidAccessKeyId'],
  mismatch: [403, 'SignatureDoesNotMatch'],
  skewed: [403, 'RequestTimeTooSkewed'],
  expired: [403, 'AccessDenied'],
};

async function handle(
  root: string,
  credentials: StandInCredentials,
  buckets: readonly string[] | undefined,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const verdict = await verifySignature(request, credentials, {
    service: 's3',
    uriEscapePath: false,
    allowPresigned: true,
  });
  if (!verdict.ok) {
    const [status, code] = AUTH_ERRORS[verdict.reason];
    request.resume();
    return xmlError(response, status, code, verdict.message.replace(/[<>&]/g, ''));
  }
  // The path as sent (a URL parser would fold `..` and backslashes before the names are checked).
  const url = new URL(request.url ?? '/', 'http://local');
  const [bucketSegment = '', ...rest] = (request.url ?? '/').split('?')[0].slice(1).split('/');
  let bucket: string;
  let key: string;
  try {
    bucket = decodeURIComponent(bucketSegment);
    key = rest.map(decodeURIComponent).join('/');
  } catch {
    return xmlError(response, 400, 'InvalidURI', 'Could not parse the specified URI');
  }
  if (!validBucketName(bucket))
    return xmlError(response, 400, 'InvalidBucketName', 'The specified bucket is not valid.');
  if (buckets && !buckets.includes(bucket))
    return xmlError(response, 404, 'NoSuchBucket', 'The specified bucket does not exist');
  const path = objectPath(root, bucket, key);
  const meta = objectPath(root, bucket, key, true);
  if (!path || !meta)
    return xmlError(
      response,
      400,
      'InvalidArgument',
      'Unsupported request: only object operations on a path-style URL, with a key of no empty, "." or ".." segment, NUL or backslash',
    );

  switch (request.method) {
    case 'PUT': {
      let body = await readBody(request);
      const declared = String(request.headers['x-amz-content-sha256'] ?? '');
      if (/^[0-9a-f]{64}$/.test(declared) && declared !== createHash('sha256').update(body).digest('hex'))
        return xmlError(
          response,
          400,
          'XAmzContentSHA256Mismatch',
          "The provided 'x-amz-content-sha256' header does not match what was computed.",
        );
      if (
        String(request.headers['content-encoding'] ?? '').includes('aws-chunked') ||
        declared.startsWith('STREAMING-')
      )
        body = decodeAwsChunked(body);
      writeLocalObject(root, bucket, key, body, String(request.headers['content-type'] ?? 'application/octet-stream'));
      response.writeHead(200, { etag: `"${createHash('md5').update(body).digest('hex')}"` });
      return void response.end();
    }
    case 'GET':
    case 'HEAD': {
      let size: number;
      let modified: Date;
      try {
        const stat = statSync(path);
        if (!stat.isFile()) throw new Error('not a file');
        size = stat.size;
        modified = stat.mtime;
      } catch {
        if (request.method === 'HEAD') {
          response.writeHead(404);
          return void response.end();
        }
        return xmlError(response, 404, 'NoSuchKey', 'The specified key does not exist.');
      }
      let metadata: { contentType?: string; etag?: string } = {};
      try {
        metadata = JSON.parse(readFileSync(meta, 'utf8')) as typeof metadata;
      } catch {
        // written without metadata: the default type
      }
      const etag = etagOf(metadata, size, modified);
      const ifMatch = request.headers['if-match'];
      if (ifMatch && ifMatch !== '*' && !ifMatch.split(',').some((tag) => tag.trim() === etag))
        return xmlError(
          response,
          412,
          'PreconditionFailed',
          'At least one of the pre-conditions you specified did not hold',
        );
      const headers: Record<string, string | number> = {
        'content-type':
          url.searchParams.get('response-content-type') ?? metadata.contentType ?? 'application/octet-stream',
        'content-length': size,
        'last-modified': modified.toUTCString(),
        'accept-ranges': 'bytes',
        etag,
      };
      const disposition = url.searchParams.get('response-content-disposition');
      if (disposition) headers['content-disposition'] = disposition;
      // `Range: bytes=<from>-[<to>]`, the one form the service sends (a ranged read of an import file)
      const range = /^bytes=(\d+)-(\d*)$/.exec(String(request.headers.range ?? ''));
      if (range && request.method === 'GET') {
        const from = Number(range[1]);
        const to = Math.min(range[2] ? Number(range[2]) : size - 1, size - 1);
        if (from >= size) return xmlError(response, 416, 'InvalidRange', 'The requested range is not satisfiable');
        response.writeHead(206, {
          ...headers,
          'content-length': to - from + 1,
          'content-range': `bytes ${from}-${to}/${size}`,
        });
        return void createReadStream(path, { start: from, end: to }).pipe(response);
      }
      response.writeHead(200, headers);
      if (request.method === 'HEAD') return void response.end();
      return void createReadStream(path).pipe(response);
    }
    case 'DELETE':
      rmSync(path, { force: true });
      rmSync(meta, { force: true });
      response.writeHead(204);
      return void response.end();
    default:
      return xmlError(response, 405, 'MethodNotAllowed', 'The specified method is not allowed against this resource.');
  }
}

/**
 * Serves `root` on `host:port` (0: any free port) to requests signed with `credentials`; with
 * `buckets`, those buckets only (any other is `NoSuchBucket`, and no folder is made for it).
 */
export function startLocalS3(
  root: string,
  options: { host?: string; port?: number; credentials: StandInCredentials; buckets?: readonly string[] },
): Promise<LocalS3> {
  const { host = '127.0.0.1', port = 0, credentials, buckets } = options;
  mkdirSync(root, { recursive: true });
  const server = createServer((request, response) => {
    handle(root, credentials, buckets, request, response).catch((error) => {
      if (!response.headersSent) xmlError(response, 500, 'InternalError', String(error).replace(/[<>&]/g, ''));
      else response.end();
    });
  });
  return new Promise((resolvePromise, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address() as { port: number };
      resolvePromise({ server, endpoint: `http://${host}:${bound}`, root });
    });
  });
}
