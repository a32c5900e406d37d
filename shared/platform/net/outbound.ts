/**
 * One webhook POST: CONNECT_TIMEOUT_MS (3 s) to open the TCP connection, WEBHOOK_TIMEOUT_MS
 * (15 s) for the whole exchange, redirects not followed (a 3xx is a failed
 * attempt), only 2xx counts. The host is resolved here and every address it resolves to must
 * be public (or loopback, locally) and not the local runtime's own service
 * (shared/platform/net/endpoint.ts); the connection then goes only to the addresses that were
 * checked (a `lookup` that answers them), so a second DNS answer cannot point the request
 * somewhere else (DNS rebinding). TLS still verifies the certificate for the host name.
 * The first RESPONSE_KEPT_BYTES of the answer's body are kept for the attempt's record (Resend's
 * `response` of an attempt); the rest is read and dropped, so the connection can be reused.
 */
import { lookup } from 'node:dns/promises';
import http from 'node:http';
import https from 'node:https';
import { isIP, type LookupFunction } from 'node:net';
import {
  addressRange,
  allowsHttpLoopback,
  endpointProblem,
  localRuntimePortProblem,
  normaliseHost,
  urlPort,
} from './endpoint';

export const WEBHOOK_TIMEOUT_MS = 15_000;
/**
 * The TCP connection must be open within this, well inside the total: an endpoint whose host
 * drops our SYNs (a firewall, a machine that is off) would otherwise hold a dispatcher slot for
 * the whole 15 s of every attempt. 3 s covers a SYN retransmitted once (Linux resends after 1 s)
 * across the world's round trips; the TLS handshake and the answer then share the rest of the 15 s.
 */
export const CONNECT_TIMEOUT_MS = 3_000;

/** What an attempt's record keeps of the endpoint's answer: enough to debug with, and the record stays under 1 KB. */
export const RESPONSE_KEPT_BYTES = 512;

/** `body`: the start of the answer's body (UTF-8), when there was an answer. */
export type PostResult = { ok: boolean; status: number | null; error: string | null; body?: string };

const agents = { 'http:': new http.Agent({ keepAlive: true }), 'https:': new https.Agent({ keepAlive: true }) };

export type Address = { address: string; family: number };

/**
 * The addresses to connect to for `hostname` (every one it resolves to), or the reason there are
 * none: each must be public (or loopback, when ALLOW_HTTP_LOOPBACK_WEBHOOKS=true) and none may be
 * the local runtime's own service on `port`.
 */
export async function checkedAddresses(
  hostname: string,
  port?: number,
): Promise<{ addresses: Address[] } | { refused: string }> {
  const host = normaliseHost(hostname);
  const found = isIP(host)
    ? [{ address: host, family: isIP(host) }]
    : await lookup(host, { all: true, verbatim: true });
  if (found.length === 0) return { refused: `${host} does not resolve` };
  const loopbackAllowed = allowsHttpLoopback();
  for (const { address } of found) {
    const ownService = port === undefined ? undefined : localRuntimePortProblem(normaliseHost(address), port);
    if (ownService) return { refused: `${host} resolves to ${address}: ${ownService}` };
    const { kind, range } = addressRange(address);
    if (kind !== 'public' && !(kind === 'loopback' && loopbackAllowed))
      return { refused: `${host} resolves to a ${kind} address (${address}: ${range})` };
  }
  return { addresses: found };
}

/** The first checked address for `hostname` (see checkedAddresses), or the reason there is none. */
export async function checkedAddress(hostname: string, port?: number): Promise<Address | { refused: string }> {
  const checked = await checkedAddresses(hostname, port);
  return 'refused' in checked ? checked : checked.addresses[0];
}

/** A `lookup` for http.request that answers only the checked addresses, whatever it is asked (both of Node's callback forms). */
export function pinnedLookup(addresses: Address[]): LookupFunction {
  return (_host, options, callback) => {
    if ((options as { all?: boolean }).all) (callback as (e: null, a: Address[]) => void)(null, addresses);
    else callback(null, addresses[0].address, addresses[0].family);
  };
}

export async function postWebhook(
  endpoint: string,
  body: string,
  headers: Record<string, string>,
  timeoutMs = WEBHOOK_TIMEOUT_MS,
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
): Promise<PostResult> {
  const problem = endpointProblem(endpoint);
  if (problem) return { ok: false, status: null, error: `endpoint refused: ${problem}` };
  const url = new URL(endpoint);
  // Locally too: the runtime's own services are refused whatever ALLOW_HTTP_LOOPBACK_WEBHOOKS says.
  let target: Awaited<ReturnType<typeof checkedAddresses>>;
  try {
    target = await checkedAddresses(url.hostname, urlPort(url));
  } catch (error) {
    return {
      ok: false,
      status: null,
      error: `DNS lookup failed: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    };
  }
  if ('refused' in target) return { ok: false, status: null, error: `endpoint refused: ${target.refused}` };
  const pinned = pinnedLookup(target.addresses);
  const transport = url.protocol === 'https:' ? https : http;
  return new Promise<PostResult>((resolve) => {
    const request = transport.request(
      url,
      {
        method: 'POST',
        agent: agents[url.protocol as 'http:' | 'https:'],
        lookup: pinned,
        headers: {
          'content-type': 'application/json',
          'content-length': Buffer.byteLength(body),
          'user-agent': 'email-service-webhooks/1',
          ...headers,
        },
      },
      (response) => {
        const kept: Buffer[] = [];
        let keptBytes = 0;
        response.on('data', (chunk: Buffer) => {
          if (keptBytes < RESPONSE_KEPT_BYTES) kept.push(chunk.subarray(0, RESPONSE_KEPT_BYTES - keptBytes));
          keptBytes += chunk.length;
        });
        response.on('end', () => {
          const status = response.statusCode ?? 0;
          const ok = status >= 200 && status < 300;
          const note =
            status >= 300 && status < 400 ? ` (redirect to ${response.headers.location ?? '?'} not followed)` : '';
          settle({
            ok,
            status,
            error: ok ? null : `endpoint answered ${status}${note}`,
            body: Buffer.concat(kept).toString('utf8'),
          });
        });
        response.on('error', (error) =>
          settle({ ok: false, status: response.statusCode ?? null, error: `response failed: ${error.message}` }),
        );
        response.on('close', () =>
          settle({ ok: false, status: response.statusCode ?? null, error: 'the response ended early' }),
        ); // after 'end' this changes nothing
      },
    );
    const timer = setTimeout(() => request.destroy(new Error(`no answer within ${timeoutMs / 1000} s`)), timeoutMs);
    let connectTimer: NodeJS.Timeout | undefined;
    // a kept-alive socket is connected already; a new one must connect within connectTimeoutMs
    request.on('socket', (socket) => {
      if (!socket.connecting) return;
      connectTimer = setTimeout(
        () => request.destroy(new Error(`no connection within ${connectTimeoutMs / 1000} s`)),
        connectTimeoutMs,
      );
      socket.once('connect', () => clearTimeout(connectTimer));
    });
    let settled = false;
    const settle = (result: PostResult) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      clearTimeout(connectTimer);
      resolve(result);
    };
    request.on('error', (error: NodeJS.ErrnoException) =>
      settle({ ok: false, status: null, error: error.code ? `${error.code}: ${error.message}` : error.message }),
    );
    request.end(body);
  });
}
