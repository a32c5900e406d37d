/**
 * Where a webhook may point, checked twice: when the endpoint is saved (its URL) and by the
 * dispatcher before every connection (the addresses its host resolves to). Imports nothing but
 * Node's own modules, so the operation schemas can use it.
 *
 * - `https` only. Plain `http` only to a loopback host (127.0.0.0/8, ::1, localhost), and only
 *   when `ALLOW_HTTP_LOOPBACK_WEBHOOKS=true`: the local runtime sets it unless told `false`, the
 *   AWS stack never does.
 * - No user name or password in the URL (they would be sent as an Authorization header we never
 *   show anywhere).
 * - Only a public unicast address may be connected to: every range of IANA's IPv4 and IPv6
 *   special-purpose address registries is refused (also those marked globally reachable: they are
 *   anycast protocol infrastructure, never a webhook receiver), and multicast, and for IPv6
 *   anything outside global unicast 2000::/3. An IPv4 address embedded in IPv6 (::ffff:a.b.c.d,
 *   the well-known NAT64 prefix 64:ff9b::/96) is judged as that IPv4 address; the other
 *   translation prefixes (IPv4-translated, local-use NAT64, 6to4, Teredo) are refused whole.
 *   With `ALLOW_HTTP_LOOPBACK_WEBHOOKS=true` loopback addresses are allowed too, nothing else.
 * - Never the local runtime's own services (LOCAL_RUNTIME_PORTS, set by local/runtime.ts:
 *   DynamoDB Local, SQS, SES, the mail viewer, S3, SMTP, the API) on this machine, whatever the
 *   setting.
 *
 * A literal address is checked when the endpoint is saved; a host name when the dispatcher
 * resolves it (shared/platform/net/outbound.ts). Host names are normalised first (case, trailing dot,
 * IPv4 in odd notations such as `0x7f.1`, `2130706433` or `127.1`, as the WHATWG URL parser reads them).
 */
import { BlockList, isIP } from 'node:net';
import { networkInterfaces } from 'node:os';

/** Local mode: `http://` to loopback is allowed, and loopback addresses pass the address check. */
export const allowsHttpLoopback = (): boolean => process.env.ALLOW_HTTP_LOOPBACK_WEBHOOKS === 'true';

export type AddressClass = 'public' | 'private' | 'loopback' | 'link-local' | 'multicast' | 'unspecified' | 'reserved';

type Range = [cidr: string, kind: AddressClass, name: string];

/** IANA IPv4 Special-Purpose Address Registry (every entry), with multicast. */
const V4_RANGES: Range[] = [
  ['0.0.0.0/8', 'unspecified', '"this network", RFC 791'],
  ['10.0.0.0/8', 'private', 'private-use, RFC 1918'],
  ['100.64.0.0/10', 'private', 'shared address space (carrier-grade NAT, VPCs), RFC 6598'],
  ['127.0.0.0/8', 'loopback', 'loopback, RFC 1122'],
  ['169.254.0.0/16', 'link-local', 'link-local (instance metadata), RFC 3927'],
  ['172.16.0.0/12', 'private', 'private-use, RFC 1918'],
  ['192.0.0.0/24', 'reserved', 'IETF protocol assignments, RFC 6890'],
  ['192.0.0.0/29', 'reserved', 'DS-Lite, RFC 7335'],
  ['192.0.0.8/32', 'reserved', 'IPv4 dummy address, RFC 7600'],
  ['192.0.0.9/32', 'reserved', 'Port Control Protocol anycast, RFC 7723'],
  ['192.0.0.10/32', 'reserved', 'TURN anycast, RFC 8155'],
  ['192.0.0.170/31', 'reserved', 'NAT64/DNS64 discovery, RFC 7050'],
  ['192.0.2.0/24', 'reserved', 'documentation (TEST-NET-1), RFC 5737'],
  ['192.31.196.0/24', 'reserved', 'AS112-v4, RFC 7535'],
  ['192.52.193.0/24', 'reserved', 'AMT, RFC 7450'],
  ['192.88.99.0/24', 'reserved', '6to4 relay anycast (deprecated), RFC 7526'],
  ['192.168.0.0/16', 'private', 'private-use, RFC 1918'],
  ['192.175.48.0/24', 'reserved', 'AS112 direct delegation, RFC 7534'],
  ['198.18.0.0/15', 'reserved', 'benchmarking, RFC 2544'],
  ['198.51.100.0/24', 'reserved', 'documentation (TEST-NET-2), RFC 5737'],
  ['203.0.113.0/24', 'reserved', 'documentation (TEST-NET-3), RFC 5737'],
  ['224.0.0.0/4', 'multicast', 'multicast, RFC 5771'],
  ['240.0.0.0/4', 'reserved', 'reserved, RFC 1112'],
  ['255.255.255.255/32', 'reserved', 'limited broadcast, RFC 919'],
];

/**
 * IANA IPv6 Special-Purpose Address Registry (every entry but the two judged by their embedded
 * IPv4 address, below), with multicast and the deprecated site-local range. Anything else
 * outside 2000::/3 is refused too.
 */
const V6_RANGES: Range[] = [
  ['::/128', 'unspecified', 'unspecified, RFC 4291'],
  ['::1/128', 'loopback', 'loopback, RFC 4291'],
  ['::ffff:0:0:0/96', 'reserved', 'IPv4-translated, RFC 2765'],
  ['64:ff9b:1::/48', 'reserved', 'local-use IPv4/IPv6 translation, RFC 8215'],
  ['100::/64', 'reserved', 'discard-only, RFC 6666'],
  ['100:0:0:1::/64', 'reserved', 'dummy IPv6 prefix, RFC 9780'],
  ['2001::/23', 'reserved', 'IETF protocol assignments, RFC 2928'],
  ['2001::/32', 'reserved', 'Teredo, RFC 4380'],
  ['2001:1::1/128', 'reserved', 'Port Control Protocol anycast, RFC 7723'],
  ['2001:1::2/128', 'reserved', 'TURN anycast, RFC 8155'],
  ['2001:1::3/128', 'reserved', 'DNS-SD service registration anycast, RFC 9665'],
  ['2001:2::/48', 'reserved', 'benchmarking, RFC 5180'],
  ['2001:3::/32', 'reserved', 'AMT, RFC 7450'],
  ['2001:4:112::/48', 'reserved', 'AS112-v6, RFC 7535'],
  ['2001:10::/28', 'reserved', 'ORCHID (deprecated), RFC 4843'],
  ['2001:20::/28', 'reserved', 'ORCHIDv2, RFC 7343'],
  ['2001:30::/28', 'reserved', 'drone remote ID entity tags, RFC 9374'],
  ['2001:db8::/32', 'reserved', 'documentation, RFC 3849'],
  ['2002::/16', 'reserved', '6to4, RFC 3056'],
  ['2620:4f:8000::/48', 'reserved', 'AS112 direct delegation, RFC 7534'],
  ['3fff::/20', 'reserved', 'documentation, RFC 9637'],
  ['5f00::/16', 'reserved', 'segment routing (SRv6) SIDs, RFC 9602'],
  ['fc00::/7', 'private', 'unique local (incl. fd00:ec2::254, instance metadata), RFC 4193'],
  ['fe80::/10', 'link-local', 'link-local, RFC 4291'],
  ['fec0::/10', 'private', 'site-local (deprecated), RFC 3879'],
  ['ff00::/8', 'multicast', 'multicast, RFC 4291'],
];

/** Every range refused by name (the registries above), for tests and documentation. */
export const SPECIAL_PURPOSE_RANGES: readonly Range[] = [...V4_RANGES, ...V6_RANGES];

/** One BlockList per range (so a match can be named), most specific first. */
const compile = (ranges: Range[], family: 'ipv4' | 'ipv6') =>
  ranges
    .map(([cidr, kind, name]) => {
      const [base, bits] = cidr.split('/');
      const list = new BlockList();
      list.addSubnet(base, Number(bits), family);
      return { cidr, bits: Number(bits), kind, name, list };
    })
    .sort((a, b) => b.bits - a.bits);
const V4 = compile(V4_RANGES, 'ipv4');
const V6 = compile(V6_RANGES, 'ipv6');
const GLOBAL_UNICAST = compile([['2000::/3', 'public', 'global unicast']], 'ipv6')[0];

export interface AddressRange {
  kind: AddressClass;
  /** the registry's name for the range and its CIDR, e.g. `Teredo, RFC 4380 (2001::/32)`; none for public */
  range?: string;
}

function rangeOfV4(ip: string): AddressRange {
  const found = V4.find((r) => r.list.check(ip, 'ipv4'));
  return found ? { kind: found.kind, range: `${found.name} (${found.cidr})` } : { kind: 'public' };
}

/** The eight 16-bit groups of an IPv6 address (with `::` expanded and a dotted IPv4 tail converted). */
function v6Groups(ip: string): number[] {
  let text = ip;
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const [a, b, c, d] = tail[1].split('.').map(Number);
    text = `${text.slice(0, -tail[1].length)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, rest] = text.split('::');
  const left = head ? head.split(':') : [];
  const right = rest === undefined ? [] : rest ? rest.split(':') : [];
  const missing = rest === undefined ? 0 : 8 - left.length - right.length;
  return [...left, ...Array(missing).fill('0'), ...right].map((g) => parseInt(g, 16));
}

/** The IPv4 address of an IPv4-mapped IPv6 address (::ffff:a.b.c.d), else undefined. */
function mappedV4(ip: string): string | undefined {
  const g = v6Groups(ip);
  if (!g.slice(0, 5).every((x) => x === 0) || g[5] !== 0xffff) return undefined;
  return `${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`;
}

function rangeOfV6(ip: string): AddressRange {
  const g = v6Groups(ip);
  const zeros = (from: number, to: number) => g.slice(from, to).every((x) => x === 0);
  const embedded = () => `${g[6] >> 8}.${g[6] & 0xff}.${g[7] >> 8}.${g[7] & 0xff}`;
  if (zeros(0, 5) && g[5] === 0xffff) return rangeOfV4(embedded()); // IPv4-mapped ::ffff:0:0/96
  if (g[0] === 0x64 && g[1] === 0xff9b && zeros(2, 6)) return rangeOfV4(embedded()); // well-known NAT64 64:ff9b::/96, RFC 6052
  const found = V6.find((r) => r.list.check(ip, 'ipv6'));
  if (found) return { kind: found.kind, range: `${found.name} (${found.cidr})` };
  if (!GLOBAL_UNICAST.list.check(ip, 'ipv6')) return { kind: 'reserved', range: 'outside global unicast (2000::/3)' };
  return { kind: 'public' };
}

/** What kind of address `ip` (IPv4 or IPv6 text, brackets and a zone allowed) is, and the range that says so. */
export function addressRange(ip: string): AddressRange {
  const bare = ip.replace(/^\[|\]$/g, '').split('%')[0];
  const version = isIP(bare);
  if (version === 4) return rangeOfV4(bare);
  if (version === 6) return rangeOfV6(bare.toLowerCase());
  throw new Error(`not an IP address: ${ip}`);
}

/** What kind of address `ip` is; only `public` may be connected to (and `loopback` locally). */
export const classifyAddress = (ip: string): AddressClass => addressRange(ip).kind;

/**
 * A host name as it will be looked up: no brackets, lower case, no trailing dot, and an IPv4
 * address in any notation the URL parser accepts (`0x7f.1`, `2130706433`, `127.1`) as dotted quad.
 */
export function normaliseHost(hostname: string): string {
  const host = hostname
    .trim()
    .replace(/^\[|\]$/g, '')
    .toLowerCase()
    .replace(/\.+$/, '');
  if (isIP(host) || host.includes(':')) return host;
  try {
    const parsed = new URL(`http://${host}/`).hostname;
    return isIP(parsed) ? parsed : host;
  } catch {
    return host;
  }
}

const isLoopbackHost = (host: string): boolean => {
  if (host === 'localhost' || host.endsWith('.localhost')) return true; // RFC 6761: always loopback
  return isIP(host) !== 0 && classifyAddress(host) === 'loopback';
};

/** The local runtime's own ports (its stand-ins and the API), from LOCAL_RUNTIME_PORTS; none on AWS. */
export function localRuntimePorts(): Set<number> {
  const listed = process.env.LOCAL_RUNTIME_PORTS;
  return new Set(listed ? listed.split(',').map(Number).filter(Number.isInteger) : []);
}

/** Whether `host` (normalised, a name or an address) is this machine: loopback, unspecified or one of its interfaces' addresses. */
export function isThisMachine(host: string): boolean {
  if (isLoopbackHost(host)) return true;
  if (!isIP(host)) return false;
  const kind = classifyAddress(host);
  if (kind === 'unspecified') return true; // connecting to 0.0.0.0 or :: reaches this machine
  const own = Object.values(networkInterfaces()).flatMap((list) =>
    (list ?? []).map((i) => i.address.split('%')[0].toLowerCase()),
  );
  const mapped = isIP(host) === 6 ? mappedV4(host) : undefined; // ::ffff:a.b.c.d is a.b.c.d
  return own.includes(host) || (mapped !== undefined && own.includes(mapped));
}

/** Why a connection to `host`:`port` would reach the local runtime itself, or undefined. */
export function localRuntimePortProblem(host: string, port: number): string | undefined {
  const ports = localRuntimePorts();
  if (ports.size === 0 || !ports.has(port) || !isThisMachine(host)) return undefined;
  return `must not point to the local runtime's own services (port ${port})`;
}

/** The port a URL connects to. */
export const urlPort = (url: URL): number => Number(url.port || (url.protocol === 'https:' ? 443 : 80));

/** Why `endpoint` may not be a webhook's endpoint, or undefined when it may. */
export function endpointProblem(endpoint: string): string | undefined {
  let url: URL;
  try {
    url = new URL(endpoint);
  } catch {
    return 'must be an absolute URL';
  }
  if (url.username || url.password) return 'must not contain a user name or password';
  const host = normaliseHost(url.hostname);
  const ownService = localRuntimePortProblem(host, urlPort(url));
  if (ownService) return ownService;
  const local = allowsHttpLoopback();
  if (url.protocol === 'http:') {
    if (!local) return 'must use https';
    if (!isLoopbackHost(host)) return 'must use https (plain http only to a loopback address)';
    return undefined;
  }
  if (url.protocol !== 'https:') return 'must use https';
  if (isLoopbackHost(host)) return local ? undefined : 'must not point to a loopback address';
  if (isIP(host) !== 0) {
    const { kind, range } = addressRange(host);
    if (kind !== 'public') return `must not point to a ${kind} address: ${range}`;
  }
  return undefined;
}
