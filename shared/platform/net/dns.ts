/**
 * DNS lookups the service makes itself (the TXT record of a domain claim, shared/domains/claims.ts; the
 * records a domain's compliance check reads, shared/deliverability/compliance.ts), one small module so
 * each reads the same way.
 *
 * Every lookup is a query over the wire (./dns-wire.ts) to DNS_SERVER (`host:port`) when it is set,
 * else to the system's resolvers (node's `getServers()`, from /etc/resolv.conf: on Lambda, the
 * Lambda resolver). The local runtime sets DNS_SERVER to its stand-in (local/aws/dns.ts), which
 * answers from the records its control API sets (`PUT /_local/dns/txt|mx/<name>`, local/control.ts):
 * the same code path as on AWS, with a record set in a test answered like a published one.
 *
 * `cachedTxt` and `cachedMx` keep an answer in the instance for as long as DNS says, for checks a
 * user repeats (a compliance check reads four names): a found record set for its smallest TTL, at
 * most MAX_KEEP_SECONDS (a record published with a day's TTL is not pinned in a warm instance for
 * a day); "no such record" (NXDOMAIN, NODATA) for its negative TTL (min of the SOA's TTL and
 * MINIMUM, RFC 2308), at most MAX_NEGATIVE_KEEP_SECONDS (a record just published is seen within
 * minutes), and not at all without an SOA. A TTL of 0 is not kept; a lookup that failed is never
 * kept. Expiry is read on the service's clock (../clock.ts), so the local manual clock moves it. At
 * most MAX_CACHED_NAMES answers are kept, the oldest dropped first. `lookupTxt` and `lookupMx` always
 * ask (a claim's verify must see the record as it is now).
 */
import { getServers } from 'node:dns';
import { now } from '../clock';
import { type Answer, query, TYPE } from './dns-wire';

/** The environment variable naming the DNS server to ask (`host:port`) instead of the system's. Set by the local runtime; never on AWS. */
export const DNS_SERVER = 'DNS_SERVER';

export const MAX_KEEP_SECONDS = 3600;
export const MAX_NEGATIVE_KEEP_SECONDS = 300;
export const MAX_CACHED_NAMES = 1000;

/** DNS names compare without case and without a trailing dot. */
export const dnsName = (name: string): string => name.toLowerCase().replace(/\.$/, '');

const servers = (): string[] => {
  const configured = process.env[DNS_SERVER];
  return configured ? [configured] : getServers();
};

const ask = (name: string, type: number): Promise<Answer> => query(dnsName(name), type, { servers: servers() });

/** Each TXT record's strings joined (a long value is split into 255-byte strings on the wire). */
const txtValues = (answer: Answer): string[] =>
  answer.records.flatMap((r) => (r.kind === 'txt' ? [Buffer.concat(r.strings).toString('utf8')] : []));

export interface MxRecord {
  priority: number;
  exchange: string;
}

const mxRecords = (answer: Answer): MxRecord[] =>
  answer.records
    .flatMap((r) => (r.kind === 'mx' ? [{ priority: r.preference, exchange: dnsName(r.exchange) }] : []))
    .sort((a, b) => a.priority - b.priority);

/**
 * The TXT values published at `name`, each record's strings joined; [] when the name has none or does
 * not exist. A server that cannot answer (timeout, SERVFAIL) throws: the caller tells "not there"
 * from "could not look".
 */
export const lookupTxt = async (name: string): Promise<string[]> => txtValues(await ask(name, TYPE.TXT));

/** The MX records of `name`, lowest priority first; [] when it has none. Throws as `lookupTxt` does. */
export const lookupMx = async (name: string): Promise<MxRecord[]> => mxRecords(await ask(name, TYPE.MX));

/** Seconds an answer may be kept here (see the header). */
function keepSeconds(answer: Answer): number {
  if (answer.ttl === undefined) return 0;
  return Math.min(answer.ttl, answer.records.length ? MAX_KEEP_SECONDS : MAX_NEGATIVE_KEEP_SECONDS);
}

/** A lookup in flight (kept until it settles, so checks at once ask once) or answered (kept until `expires`, epoch ms). */
interface Entry {
  expires: number;
  answer: Promise<Answer>;
}
const cache = new Map<string, Entry>();

function cachedAnswer(name: string, type: number): Promise<Answer> {
  const key = `${type} ${dnsName(name)}`;
  const hit = cache.get(key);
  if (hit && hit.expires > now()) return hit.answer;
  const entry: Entry = { expires: Number.POSITIVE_INFINITY, answer: ask(name, type) };
  const forget = () => cache.get(key) === entry && cache.delete(key);
  void entry.answer.then(
    (answer) => {
      const keep = keepSeconds(answer);
      if (keep > 0) entry.expires = now() + keep * 1000;
      else forget();
    },
    forget, // a failed lookup is asked again; the caller gets the error from the promise it holds
  );
  cache.delete(key); // to the end of the order: the oldest is first
  cache.set(key, entry);
  if (cache.size > MAX_CACHED_NAMES) cache.delete(cache.keys().next().value!);
  return entry.answer;
}

export const cachedTxt = async (name: string): Promise<string[]> => txtValues(await cachedAnswer(name, TYPE.TXT));
export const cachedMx = async (name: string): Promise<MxRecord[]> => mxRecords(await cachedAnswer(name, TYPE.MX));
