/**
 * SigV4 as the AWS services check it, for every stand-in of the local runtime (s3.ts, kms.ts,
 * sqs.ts, ses-front.ts): a request must carry a signature made with the runtime's own credentials
 * (./credentials.ts, generated on first start), in its `Authorization` header or in its query (a
 * presigned URL). The signature is computed again here and compared in constant time.
 *
 * - Header-signed: recomputed with `@smithy/signature-v4`, the signer every SDK client and the
 *   service's hand-signed calls use (the path signed as sent for S3, encoded once more for the
 *   other services, as their clients do), over the headers the request names in SignedHeaders and
 *   its payload (S3: the `x-amz-content-sha256` it declares, which s3.ts checks against the body).
 *   Its `X-Amz-Date` must be within 15 minutes of now (S3's RequestTimeTooSkewed, the same window
 *   the other services apply), and its credential scope's date and service must be its own.
 * - Query-signed (presigned, S3 only): `X-Amz-Expires` of 1 s to 7 days, refused once `X-Amz-Date`
 *   plus that has passed (a replay after expiry is refused) and before its date (a URL dated ahead).
 *   The canonical request is built here from the URL as sent (SigV4's unsigned payload for S3), so a
 *   changed method, path, query value or expiry no longer matches.
 *
 * A request with neither is `missing`; a key id other than the runtime's is `unknown key`.
 */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { SignatureV4 } from '@smithy/signature-v4';
import { Sha256 } from '../../shared/platform/aws/sha256';
import type { StandInCredentials } from './credentials';
import { LOCAL_REGION } from '../settings';

export type SignatureVerdict =
  | { ok: true; accessKeyId: string }
  | { ok: false; reason: 'missing' | 'malformed' | 'unknown key' | 'mismatch' | 'skewed' | 'expired'; message: string };

/** The error code a REST-JSON service (SES v2, EventBridge Scheduler) answers a signature that does not hold with (403). */
export const REST_JSON_AUTH_ERRORS: Record<Exclude<SignatureVerdict, { ok: true }>['reason'], string> = {
  missing: 'MissingAuthenticationTokenException',
  malformed: 'IncompleteSignatureException',
  'unknown key': 'UnrecognizedClientException',
  mismatch: 'InvalidSignatureException',
  skewed: 'InvalidSignatureException',
  expired: 'InvalidSignatureException',
};

/** S3's (and SigV4's) allowed clock difference between a header-signed request and the server. */
export const MAX_CLOCK_SKEW_MS = 15 * 60 * 1000;
/** The longest a presigned URL may be valid (SigV4: 7 days). */
const MAX_PRESIGN_SECONDS = 7 * 24 * 3600;

export interface VerifyOptions {
  /** the signing name the scope must carry: `s3`, `kms`, `sqs`, `ses` */
  service: string;
  /** S3 signs the path as sent; every other service encodes it once more (the SDK's `uriEscapePath`) */
  uriEscapePath: boolean;
  /** the body as received (services whose clients do not declare `x-amz-content-sha256`) */
  body?: Uint8Array;
  /** presigned URLs are S3's alone */
  allowPresigned?: boolean;
  now?: number;
}

const fail = (reason: Exclude<SignatureVerdict, { ok: true }>['reason'], message: string): SignatureVerdict => ({
  ok: false,
  reason,
  message,
});

/** `YYYYMMDDTHHMMSSZ` as a time, or NaN. */
function amzDate(value: string | undefined): number {
  const m = /^(\d{4})(\d{2})(\d{2})T(\d{2})(\d{2})(\d{2})Z$/.exec(value ?? '');
  return m ? Date.UTC(+m[1], +m[2] - 1, +m[3], +m[4], +m[5], +m[6]) : Number.NaN;
}

const sameHex = (a: string, b: string) =>
  a.length === b.length && /^[0-9a-f]+$/.test(a) && timingSafeEqual(Buffer.from(a), Buffer.from(b));

/** The query as decoded pairs, in order (SigV4 values are percent-encoded; `+` is a literal plus). */
function queryPairs(rawQuery: string): [string, string][] | undefined {
  try {
    return rawQuery
      .split('&')
      .filter(Boolean)
      .map((pair) => {
        const at = pair.indexOf('=');
        return at < 0
          ? [decodeURIComponent(pair), '']
          : [decodeURIComponent(pair.slice(0, at)), decodeURIComponent(pair.slice(at + 1))];
      });
  } catch {
    return undefined;
  }
}

/** The credential scope `<key id>/<yyyymmdd>/<region>/<service>/aws4_request`, checked against the request's date and service. */
function scopeOf(
  credential: string,
  signedAt: number,
  service: string,
): { accessKeyId: string; scope: string[] } | string {
  const [accessKeyId, ...scope] = credential.split('/');
  if (!accessKeyId || scope.length !== 4 || scope[3] !== 'aws4_request')
    return 'the credential is not <key id>/<date>/<region>/<service>/aws4_request';
  if (scope[0] !== new Date(signedAt).toISOString().slice(0, 10).replace(/-/g, ''))
    return "the credential's date is not the request's date";
  if (scope[2] !== service) return `the credential is scoped to ${scope[2]}, not ${service}`;
  return { accessKeyId, scope };
}

export async function verifySignature(
  request: IncomingMessage,
  credentials: StandInCredentials,
  options: VerifyOptions,
): Promise<SignatureVerdict> {
  const now = options.now ?? Date.now();
  const [path, rawQuery = ''] = (request.url ?? '/').split('?');
  const params = queryPairs(rawQuery);
  if (!params) return fail('malformed', 'The query string is not percent-encoded');
  const authorization = request.headers.authorization;
  if (authorization === undefined) {
    if (!params.some(([name]) => name === 'X-Amz-Signature'))
      return fail('missing', 'The request carries no signature');
    if (!options.allowPresigned) return fail('missing', 'The request carries no Authorization header');
    return verifyPresigned(request, path, params, credentials, options.service, now);
  }
  const parsed =
    /^AWS4-HMAC-SHA256 Credential=([^,\s]+),\s*SignedHeaders=([a-z0-9;-]+),\s*Signature=([0-9a-f]{64})$/.exec(
      authorization,
    );
  if (!parsed)
    return fail(
      'malformed',
      'The Authorization header is not AWS4-HMAC-SHA256 Credential=..., SignedHeaders=..., Signature=...',
    );
  const [, credential, signedHeaderList, signature] = parsed;
  const signedAt = amzDate(String(request.headers['x-amz-date'] ?? ''));
  if (Number.isNaN(signedAt)) return fail('malformed', 'The request has no valid X-Amz-Date header');
  const scoped = scopeOf(credential, signedAt, options.service);
  if (typeof scoped === 'string') return fail('malformed', scoped);
  if (scoped.accessKeyId !== credentials.accessKeyId)
    return fail('unknown key', 'The access key id is not one of this runtime');
  if (Math.abs(now - signedAt) > MAX_CLOCK_SKEW_MS)
    return fail('skewed', 'The difference between the request time and the current time is too large');
  const signedHeaders = signedHeaderList.split(';');
  if (!signedHeaders.includes('host')) return fail('malformed', 'SignedHeaders must include host');
  const headers: Record<string, string> = {};
  for (const name of signedHeaders) {
    const value = request.headers[name];
    if (value === undefined) return fail('mismatch', `The signed header ${name} is not in the request`);
    headers[name] = Array.isArray(value) ? value.join(',') : value;
  }
  // A declared payload hash must be the body's (S3 checks its own on PUT, where the body is read).
  const declared = headers['x-amz-content-sha256'];
  if (options.body && declared !== undefined && declared !== createHash('sha256').update(options.body).digest('hex'))
    return fail('mismatch', 'The payload hash the request declares is not its body');
  const query: Record<string, string | string[]> = {};
  for (const [name, value] of params) query[name] = name in query ? [query[name]].flat().concat(value) : value;
  const signer = new SignatureV4({
    service: options.service,
    region: scoped.scope[1],
    credentials,
    sha256: Sha256,
    uriEscapePath: options.uriEscapePath,
    applyChecksum: false,
  });
  const signed = await signer.sign(
    {
      method: request.method ?? 'GET',
      protocol: 'http:',
      hostname: 'local',
      path,
      query,
      headers,
      body: options.body ?? new Uint8Array(),
    },
    { signingDate: new Date(signedAt), signableHeaders: new Set(signedHeaders), unsignableHeaders: new Set() },
  );
  const expected = /Signature=([0-9a-f]{64})/.exec(String(signed.headers.authorization ?? ''))?.[1] ?? '';
  const expectedList = /SignedHeaders=([^,]+)/.exec(String(signed.headers.authorization ?? ''))?.[1];
  if (expectedList !== signedHeaderList)
    return fail('mismatch', 'The signed headers are not the ones the signature names');
  return sameHex(expected, signature)
    ? { ok: true, accessKeyId: scoped.accessKeyId }
    : fail('mismatch', 'The request signature we calculated does not match the signature you provided');
}

/** SigV4's URI encoding (RFC 3986 unreserved characters kept). */
const escapeUri = (value: string) =>
  encodeURIComponent(value).replace(/[!'()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`);
const hmac = (key: string | Buffer, data: string) => createHmac('sha256', key).update(data).digest();

/**
 * A presigned (query-signed) request: the canonical request of SigV4 (method, the path as sent,
 * the query but its signature, the signed headers, the unsigned payload of a presigned S3 URL), as
 * the SDK's signer builds it.
 */
function verifyPresigned(
  request: IncomingMessage,
  path: string,
  params: [string, string][],
  credentials: StandInCredentials,
  service: string,
  now: number,
): SignatureVerdict {
  const values = (name: string) => params.filter(([n]) => n === name).map(([, v]) => v);
  for (const name of [
    'X-Amz-Algorithm',
    'X-Amz-Credential',
    'X-Amz-Date',
    'X-Amz-Expires',
    'X-Amz-SignedHeaders',
    'X-Amz-Signature',
  ]) {
    if (values(name).length !== 1) return fail('malformed', `Query-string authentication requires exactly one ${name}`);
  }
  const param = (name: string) => values(name)[0];
  if (param('X-Amz-Algorithm') !== 'AWS4-HMAC-SHA256')
    return fail('malformed', 'X-Amz-Algorithm must be AWS4-HMAC-SHA256');
  const signedAt = amzDate(param('X-Amz-Date'));
  if (Number.isNaN(signedAt)) return fail('malformed', 'X-Amz-Date must be YYYYMMDDTHHMMSSZ');
  const expires = param('X-Amz-Expires');
  if (!/^\d{1,6}$/.test(expires) || Number(expires) < 1 || Number(expires) > MAX_PRESIGN_SECONDS)
    return fail('malformed', 'X-Amz-Expires must be 1 to 604800 seconds');
  const scoped = scopeOf(param('X-Amz-Credential'), signedAt, service);
  if (typeof scoped === 'string') return fail('malformed', scoped);
  if (scoped.accessKeyId !== credentials.accessKeyId)
    return fail('unknown key', 'The access key id is not one of this runtime');
  if (now > signedAt + Number(expires) * 1000) return fail('expired', 'Request has expired');
  if (signedAt > now + MAX_CLOCK_SKEW_MS) return fail('skewed', 'The request is dated in the future');
  const signedHeaders = param('X-Amz-SignedHeaders').split(';');
  if (!signedHeaders.includes('host')) return fail('malformed', 'X-Amz-SignedHeaders must include host');
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
    values('X-Amz-Content-Sha256')[0] || 'UNSIGNED-PAYLOAD',
  ].join('\n');
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    param('X-Amz-Date'),
    scoped.scope.join('/'),
    createHash('sha256').update(canonicalRequest).digest('hex'),
  ].join('\n');
  const signingKey = scoped.scope
    .slice(0, 4)
    .reduce<string | Buffer>((key, part) => hmac(key, part), `AWS4${credentials.secretAccessKey}`);
  const expected = createHmac('sha256', signingKey).update(stringToSign).digest('hex');
  return sameHex(expected, param('X-Amz-Signature'))
    ? { ok: true, accessKeyId: scoped.accessKeyId }
    : fail('mismatch', 'The request signature we calculated does not match the signature you provided');
}

/**
 * `fetch` with the request SigV4-signed for a stand-in (`service`: its signing name), for scripts and
 * tests that call a stand-in's own routes (the SES front's `/_local/...`) without an SDK client.
 */
export async function signedFetch(
  url: string,
  credentials: StandInCredentials,
  service: string,
  init: { method?: string; body?: string } = {},
): Promise<Response> {
  const target = new URL(url);
  const query: Record<string, string> = {};
  for (const [name, value] of target.searchParams) query[name] = value;
  const signer = new SignatureV4({
    service,
    region: LOCAL_REGION,
    credentials,
    sha256: Sha256,
    uriEscapePath: service !== 's3',
  });
  const signed = await signer.sign({
    method: init.method ?? 'GET',
    protocol: target.protocol,
    hostname: target.hostname,
    port: target.port ? Number(target.port) : undefined,
    path: target.pathname,
    query,
    headers: { host: target.host },
    body: init.body,
  });
  const headers = { ...signed.headers } as Record<string, string>;
  delete headers.host;
  return fetch(url, { method: signed.method, headers, body: init.body });
}
