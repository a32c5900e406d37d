/**
 * DNS lookups the service makes itself (the TXT record of a domain claim, shared/domains/claims.ts; the
 * records a domain's compliance check reads, shared/deliverability/compliance.ts), one small module so
 * each reads the same way.
 *
 * On AWS a lookup is the system resolver's (node:dns/promises). The local runtime points it at its
 * stand-in instead: DNS_TXT_FILE names a JSON file under its DATA_DIR (`{"<name>": ["<value>", ...]}`)
 * that its control API writes (`PUT /_local/dns/txt/<name>`, local/control.ts), so a test makes a
 * record "exist" without a real zone; MX records likewise (DNS_MX_FILE, `PUT /_local/dns/mx/<name>`,
 * values `"<priority> <host>"`). The file is read at every lookup: a record set a moment ago counts.
 *
 * `cachedTxt` and `cachedMx` keep the system resolver's answers CACHE_MS in the instance (node's
 * resolver gives no TTL for TXT or MX; five minutes is the usual TTL of the records checked), for
 * checks a user repeats; the stand-in is never cached.
 */
import { resolveMx, resolveTxt } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';

/** The environment variables that turn lookups to the local stand-in's files. Never set on AWS. */
export const DNS_TXT_FILE = 'DNS_TXT_FILE';
export const DNS_MX_FILE = 'DNS_MX_FILE';

/** DNS names compare without case and without a trailing dot. */
export const dnsName = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/** The stand-in's records: every name's values; none when the file is not there yet. */
async function readRecordsFile(file: string): Promise<Record<string, string[]>> {
  try {
    return JSON.parse(await readFile(file, 'utf8')) as Record<string, string[]>;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw error;
  }
}

/** Resolver answers that mean "no such record" rather than "could not ask". */
const NO_RECORD = new Set(['ENODATA', 'ENOTFOUND', 'ENONAME', 'NXDOMAIN']);

/**
 * The TXT values published at `name`, each record's strings joined (a long value is split into
 * 255-byte strings on the wire); [] when the name has none or does not exist. A resolver that
 * cannot answer (timeout, SERVFAIL) throws: the caller tells "not there" from "could not look".
 */
export async function lookupTxt(name: string): Promise<string[]> {
  const file = process.env[DNS_TXT_FILE];
  if (file) return (await readRecordsFile(file))[dnsName(name)] ?? [];
  try {
    return (await resolveTxt(dnsName(name))).map((chunks) => chunks.join(''));
  } catch (error) {
    if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? '')) return [];
    throw error;
  }
}

export interface MxRecord {
  priority: number;
  exchange: string;
}

/** The MX records of `name`, lowest priority first; [] when it has none. Throws as `lookupTxt` does. */
export async function lookupMx(name: string): Promise<MxRecord[]> {
  const file = process.env[DNS_MX_FILE];
  const records = file
    ? ((await readRecordsFile(file))[dnsName(name)] ?? []).map((value) => {
        const [priority, exchange] = value.split(' ');
        return { priority: Number(priority), exchange };
      })
    : await resolveMx(dnsName(name)).catch((error: NodeJS.ErrnoException) => {
        if (NO_RECORD.has(error.code ?? '')) return [];
        throw error;
      });
  return records
    .map((r) => ({ priority: r.priority, exchange: dnsName(r.exchange) }))
    .sort((a, b) => a.priority - b.priority);
}

const CACHE_MS = 5 * 60_000;
const cache = new Map<string, { at: number; answer: Promise<unknown> }>();

function cached<T>(key: string, lookup: () => Promise<T>): Promise<T> {
  if (process.env[DNS_TXT_FILE] || process.env[DNS_MX_FILE]) return lookup(); // the stand-in: always as it is now
  const hit = cache.get(key);
  if (hit && Date.now() - hit.at < CACHE_MS) return hit.answer as Promise<T>;
  const answer = lookup();
  cache.set(key, { at: Date.now(), answer });
  answer.catch(() => cache.delete(key)); // a failed lookup is asked again
  return answer;
}

export const cachedTxt = (name: string): Promise<string[]> => cached(`TXT ${dnsName(name)}`, () => lookupTxt(name));
export const cachedMx = (name: string): Promise<MxRecord[]> => cached(`MX ${dnsName(name)}`, () => lookupMx(name));
