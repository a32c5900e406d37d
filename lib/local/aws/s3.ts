/**
 * The local stand-in for the inbound mail bucket: just enough of the S3 REST API (path-style
 * PutObject, GetObject, HeadObject, DeleteObject, and presigned GETs) over HTTP on loopback,
 * serving a folder: `<root>/<bucket>/<key>`, with each object's content type beside it in
 * `<root>/.meta/<bucket>/<key>.json`. Handlers reach it through `AWS_ENDPOINT_URL_S3`, like every
 * other stand-in, and the download URLs they hand out point here.
 *
 * Requests are not authenticated (every stand-in here trusts loopback), but a presigned URL past
 * its `X-Amz-Date` + `X-Amz-Expires` is refused with S3's `AccessDenied`, as S3 would.
 * The local SMTP server writes raw messages straight into the folder (`writeLocalObject`), as SES
 * writes them into the bucket.
 */
import { mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { dirname, join, resolve, sep } from 'node:path';

export interface LocalS3 {
  server: Server;
  endpoint: string;
  root: string;
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
  writeFileSync(meta, JSON.stringify({ contentType }));
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

async function handle(root: string, request: IncomingMessage, response: ServerResponse): Promise<void> {
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
  if (expired(url)) return xmlError(response, 403, 'AccessDenied', 'Request has expired');

  switch (request.method) {
    case 'PUT': {
      let body = await readBody(request);
      if (String(request.headers['content-encoding'] ?? '').includes('aws-chunked') || String(request.headers['x-amz-content-sha256'] ?? '').startsWith('STREAMING-')) body = decodeAwsChunked(body);
      writeLocalObject(root, decodeURIComponent(bucket), key, body, String(request.headers['content-type'] ?? 'application/octet-stream'));
      response.writeHead(200, { etag: `"${body.length.toString(16)}"` });
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
      let contentType = 'application/octet-stream';
      try {
        contentType = (JSON.parse(readFileSync(meta, 'utf8')) as { contentType?: string }).contentType ?? contentType;
      } catch {
        // written without metadata: the default type
      }
      const headers: Record<string, string | number> = {
        'content-type': url.searchParams.get('response-content-type') ?? contentType,
        'content-length': size,
        'last-modified': modified.toUTCString(),
        etag: `"${size.toString(16)}-${modified.getTime().toString(16)}"`,
      };
      const disposition = url.searchParams.get('response-content-disposition');
      if (disposition) headers['content-disposition'] = disposition;
      response.writeHead(200, headers);
      return void response.end(request.method === 'GET' ? readFileSync(path) : undefined);
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

/** Serves `root` on `host:port` (0: any free port). */
export function startLocalS3(root: string, host = '127.0.0.1', port = 0): Promise<LocalS3> {
  mkdirSync(root, { recursive: true });
  const server = createServer((request, response) => {
    handle(root, request, response).catch((error) => {
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
