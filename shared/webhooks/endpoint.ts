/**
 * Where a webhook may point, checked twice: when the endpoint is saved (its URL) and by the
 * dispatcher before every connection (the addresses its host resolves to). Imports nothing but
 * `node:net`, so the operation schemas can use it.
 *
 * - `https` only. Plain `http` only to a loopback host (127.0.0.0/8, ::1, localhost), and only
 *   when `ALLOW_HTTP_LOOPBACK_WEBHOOKS=true`: the local runtime sets it, the AWS stack never does.
 * - No user name or password in the URL (they would be sent as an Authorization header we never
 *   show anywhere).
 * - In AWS mode (the variable not `true`) an address that is not a public unicast address is
 *   refused: private (10/8, 172.16/12, 192.168/16, 100.64/10, fc00::/7), loopback, link-local
 *   (169.254/16 with the instance metadata address, fe80::/10), multicast, unspecified and
 *   reserved ranges, also when embedded in an IPv6 address (::ffff:a.b.c.d, 64:ff9b::/96,
 *   2002::/16). A literal address is refused when the endpoint is saved; a host name when the
 *   dispatcher resolves it (shared/webhooks/http.ts).
 */
import { isIP } from 'node:net';

/** Local mode: `http://` to loopback is allowed and resolved addresses are not checked. */
export const allowsHttpLoopback = (): boolean => process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS === 'true';

export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'multicast' | 'unspecified' | 'reserved';

const V4_RANGES: [base: string, bits: number, kind: AddressClass][] = [
  ['0.0.0.0', 8, 'unspecified'],
  ['10.0.0.0', 8, 'private'],
  ['100.64.0.0', 10, 'private'], // carrier-grade NAT, also used inside VPCs
  ['127.0.0.0', 8, 'loopback'],
  ['169.254.0.0', 16, 'link-local'], // 169.254.169.254: instance metadata
  ['172.16.0.0', 12, 'private'],
  ['192.0.0.0', 24, 'reserved'],
  ['192.0.2.0', 24, 'reserved'],
  ['192.168.0.0', 16, 'private'],
  ['198.18.0.0', 15, 'reserved'],
  ['198.51.100.0', 24, 'reserved'],
  ['203.0.113.0', 24, 'reserved'],
  ['224.0.0.0', 4, 'multicast'],
  ['240.0.0.0', 4, 'reserved'], // and 255.255.255.255
];

const v4ToInt = (ip: string) => ip.split('.').reduce((n, part) => (n << 8) + Number(part), 0) >>> 0;

function classifyV4(ip: string): AddressClass {
  const n = v4ToInt(ip);
  for (const [base, bits, kind] of V4_RANGES) {
    const mask = bits === 0 ? 0 : (~0 << (32 - bits)) >>> 0;
    if ((n & mask) >>> 0 === (v4ToInt(base) & mask) >>> 0) return kind;
  }
  return 'public';
}

/** The eight 16-bit groups of an IPv6 address (with `::` expanded and a dotted IPv4 tail converted). */
function v6Groups(ip: string): number[] {
  let text = ip;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = v4ToInt(tail[1]);
    text = text.slice(0, -tail[1].length) + `${(n >>> 16).toString(16)}:${(n & 0xffff).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const missing = rest === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array(missing).fill('0'), ...right].map((g) => parseInt(g, 16));
}

const embeddedV4 = (a: number, b: number) => `${a >> 8}.${a & 0xff}.${b >> 8}.${b & 0xff}`;

function classifyV6(ip: string): AddressClass {
  const g = v6Groups(ip.split('%')[0]);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  if (zeros(0, 8)) return 'unspecified';
  if (zeros(0, 7) && g[7] === 1) return 'loopback';
  if (zeros(0, 5) && g[5] === 0xffff) return classifyV4(embeddedV4(g[6], g[7])); // IPv4-mapped
  if (zeros(0, 6)) return classifyV4(embeddedV4(g[6], g[7])); // IPv4-compatible (deprecated)
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return classifyV4(embeddedV4(g[6], g[7])); // NAT64
  if (g[0] === 0x2002) return classifyV4(embeddedV4(g[1], g[2])); // 6to4
  if ((g[0] & 0xfe00) === 0xfc00) return 'private'; // unique local, incl. fd00:ec2::254 (metadata)
  if ((g[0] & 0xffc0) === 0xfe80) return 'link-local';
  if ((g[0] & 0xffc0) === 0xfec0) return 'private'; // site-local (deprecated)
  if ((g[0] & 0xff00) === 0xff00) return 'multicast';
  if (g[0] === 0x2001 && g[1] === 0x0db8) return 'reserved'; // documentation
  return 'public';
}

/** What kind of address `ip` (IPv4 or IPv6 text) is; only `public` may be connected to in AWS mode. */
export function classifyAddress(ip: string): AddressClass {
  const bare = ip.replace(/^\[|\]$/g, '');
  const version = isIP(bare.split('%')[0]);
  if (version === 4) return classifyV4(bare);
  if (version === 6) return classifyV6(bare);
  throw new Error(`not an IP address: ${ip}`);
}

const isLoopbackHost = (hostname: string): boolean => {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  return isIP(host) !== 0 && classifyAddress(host) === 'loopback';
};

/** Why `endpoint` may not be a webhook's endpoint, or undefined when it may. */
export function endpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not contain a user name or password';
  const local = allowsHttpLoopback();
  if (url.protocol === 'http:') {
    if (!local) return 'must use https';
    if (!isLoopbackHost(url.hostname)) return 'must use https (plain http only to a loopback address)';
    return undefined;
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (local) return undefined;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isLoopbackHost(host)) return 'must not point to a loopback address';
  if (isIP(host) !== 0 && classifyAddress(host) !== 'public') return `must not point to a ${classifyAddress(host)} address`;
  return undefined;
}
