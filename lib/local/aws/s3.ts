/**
 * The local stand-in for the service's buckets: just enough of the S3 REST API (path-style
 * PutObject, GetObject with `Range` and `If-Match`, HeadObject, DeleteObject, and presigned GETs and
 * PUTs) over HTTP on loopback, serving a folder: `<root>/<bucket>/<key>`, with each object's content
 * type and ETag (its MD5, as S3's for a single PUT) beside it in `<root>/.meta/<bucket>/<key>.json`.
 * Handlers reach it through `AWS_ENDPOINT_URL_S3`, like every other stand-in, and the download and
 * upload URLs they hand out point here.
 *
 * Requests signed in their `Authorization` header (the handlers' own) are trusted, as every stand-in
 * here trusts loopback. A presigned URL is what a client brings from outside, so it is checked as S3
 * checks it: past its `X-Amz-Date` + `X-Amz-Expires` it is `AccessDenied`; given the runtime's
 * credentials (`credentials`), its SigV4 signature is computed again and a URL whose method, key,
 * query or expiry was changed is `SignatureDoesNotMatch`; a request with neither is `AccessDenied`.
 * The local SMTP server writes raw messages straight into the folder (`writeLocalObject`), as SES
 * writes them into the bucket.
 */
import { createHash, createHmac } from 'node:crypto';
import { createReadStream, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, join, resolve, sep } from 'node:path';

export interface LocalS3 {
  server: Server;
  endpoint: string;
  root: string;
}

/** The credentials the handlers sign with: presigned URLs are checked against them. */
export interface LocalS3Credentials {
  accessKeyId: string;
  secretAccessKey: string;
}

/** Where an object lives in the folder; undefined for keys that would leave it (`..`) or are empty. */
function objectPath(root: string, bucket: string, key: string, meta = false): string | undefined {
  if (!bucket || !key || bucket.startsWith('.') || key.split('/').some((s) => s === '..' || s === '.' || s === '')) return undefined;
  const base = meta ? join(root, '.meta', bucket) : join(root, bucket);
  const path = resolve(base, `${key}${meta ? '.json' : ''}`);
  return path.startsWith(resolve(base) + sep) ? path : undefined;
}

/** Writes an object as PutObject would (for the SES stand-in, which writes to the bucket directly). */
export function writeLocalObject(root: string, bucket: string, key: string, body: Uint8Array, contentType = 'application/octet-stream'): void {
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
  response.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${code}</Code><Message>${message}</Message></Error>`);
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

/** A presigned URL's expiry has passed (`X-Amz-Date` is `YYYYMMDDTHHMMSSZ`). */
function expired(url: URL, now = Date.now()): boolean {
  const date = url.searchParams.get('X-Amz-Date');
  const expires = url.searchParams.get('X-Amz-Expires');
  if (!date || !expires) return false;
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(date);
  if (!m) return true;
  const signedAt = Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]);
  return now > signedAt + Number(expires) * 1000;
}

/** SigV4's URI encoding (RFC 3986 unreserved characters kept). */
const escapeUri = (value: string) => encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * Whether a presigned (query-signed) request carries the signature `credentials` give for it: the
 * canonical request of SigV4 (method, the path as sent, the query but its signature, the signed
 * headers, the unsigned payload of a presigned S3 URL), as the SDK's signer builds it.
 */
function presignatureValid(request: IncomingMessage, credentials: LocalS3Credentials): 'valid' | 'unknown key' | 'mismatch' {
  const [path, rawQuery = ''] = (request.url ?? '/').split('?');
  const params = rawQuery
    .split('&')
    .filter(Boolean)
    .map((pair) => {
      const [name, value = ''] = pair.split('=');
      return [decodeURIComponent(name), decodeURIComponent(value)] as const;
    });
  const param = (name: string) => params.find(([n]) => n === name)?.[1] ?? '';
  const [accessKeyId, ...scope] = param('X-Amz-Credential').split('/');
  if (accessKeyId !== credentials.accessKeyId) return 'unknown key';
  const signedHeaders = param('X-Amz-SignedHeaders').split(';');
  const canonicalRequest = [
    request.method,
    path,
    params
      .filter(([name]) => name !== 'X-Amz-Signature')
      .map(([name, value]) => `${escapeUri(name)}=${escapeUri(value)}`)
      .sort()
      .join('&'),
    ...signedHeaders.map(
      (name) =>
        `${name}:${String(request.headers[name] ?? '')
          .trim()
          .replace(/\s+/g, ' ')}`,
    ),
    '',
    signedHeaders.join(';'),
    param('X-Amz-Content-Sha256') || 'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = ['AWS4-HMAC-SHA256', param('X-Amz-Date'), scope.join('/'), createHash('sha256').update(canonicalRequest).digest('hex')].join('\n');
  const signingKey = scope.slice(0, 4).reduce<string | Buffer>((key, part) => hmac(key, part), `AWS4${credentials.secretAccessKey}`);
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return expected === param('X-Amz-Signature') ? 'valid' : 'mismatch';
}

/** The object's ETag: the MD5 its metadata recorded, else (written before that) one from its size and time. */
function etagOf(meta: { etag?: string }, size: number, modified: Date): string {
  return meta.etag ?? `"${size.toString(16)}-${modified.getTime().toString(16)}"`;
}

async function handle(root: string, credentials: LocalS3Credentials | undefined, request: IncomingMessage, response: ServerResponse): Promise<void> {
  const url = new URL(request.url ?? '/', 'http://local');
  const [bucket = '', ...rest] = url.pathname.slice(1).split('/');
  let key: string;
  try {
    key = rest.map(decodeURIComponent).join('/');
  } catch {
    return xmlError(response, 400, 'InvalidURI', 'Could not parse the specified URI');
  }
  const path = objectPath(root, decodeURIComponent(bucket), key);
  const meta = objectPath(root, decodeURIComponent(bucket), key, true);
  if (!path || !meta) return xmlError(response, 400, 'InvalidArgument', 'Unsupported request: only object operations on a path-style URL');
  if (url.searchParams.has('X-Amz-Signature')) {
    if (expired(url)) return xmlError(response, 403, 'AccessDenied', 'Request has expired');
    const verdict = credentials ? presignatureValid(request, credentials) : 'valid';
    if (verdict === 'unknown key') return xmlError(response, 403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.');
    if (verdict === 'mismatch') return xmlError(response, 403, 'SignatureDoesNotMatch', 'The request signature we calculated does not match the signature you provided.');
  } else if (credentials && !request.headers.authorization) {
    return xmlError(response, 403, 'AccessDenied', 'Access Denied');
  }

  switch (request.method) {
    case 'PUT': {
      let body = await readBody(request);
      if (String(request.headers['content-encoding'] ?? '').includes('aws-chunked') || String(request.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-')) body = decodeAwsChunked(body);
      writeLocalObject(root, decodeURIComponent(bucket), key, body, String(request.headers['content-type'] ?? 'application/octet-stream'));
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
        return xmlError(response, 412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold');
      const headers: Record<string, string | number> = {
        'content-type': url.searchParams.get('response-content-type') ?? metadata.contentType ?? 'application/octet-stream',
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
        response.writeHead(206, { ...headers, 'content-length': to - from + 1, 'content-range': `bytes ${from}-${to}/${size}` });
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

/** Serves `root` on `host:port` (0: any free port); with `credentials`, checks presigned URLs' signatures and refuses unsigned requests. */
export function startLocalS3(root: string, options: { host?: string; port?: number; credentials?: LocalS3Credentials } = {}): Promise<LocalS3> {
  const { host = '127.0.0.1', port = 0, credentials } = options;
  mkdirSync(root, { recursive: true });
  const server = createServer((request, response) => {
    handle(root, credentials, request, response).catch((error) => {
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
