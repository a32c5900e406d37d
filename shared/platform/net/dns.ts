/**
 * DNS lookups the service makes itself (today: the TXT record of a domain claim, shared/domains/claims.ts;
 * later the DMARC and compliance checks), one small module so each reads the same way.
 *
 * On AWS a lookup is the system resolver's (node:dns/promises). The local runtime points it at its
 * stand-in instead: DNS_TXT_FILE names a JSON file under its DATA_DIR (`{"<name>": ["<value>", ...]}`)
 * that its control API writes (`PUT /_local/dns/txt/<name>`, local/control.ts), so a test makes a
 * record "exist" without a real zone. The file is read at every lookup: a record set a moment ago counts.
 */
import { resolveTxt } from 'node:dns/promises';
import { readFile } from 'node:fs/promises';

/** The environment variable that turns lookups to the local stand-in's file. Never set on AWS. */
export const DNS_TXT_FILE = 'DNS_TXT_FILE';

/** DNS names compare without case and without a trailing dot. */
export const dnsName = (name: string): string => name.toLowerCase().replace(/\.$/, '');

/** The stand-in's records: every name's TXT values; none when the file is not there yet. */
async function readTxtFile(file: string): Promise<Record<string, string[]>> {
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
  if (file) return (await readTxtFile(file))[dnsName(name)] ?? [];
  try {
    return (await resolveTxt(dnsName(name))).map((chunks) => chunks.join(''));
  } catch (error) {
    if (NO_RECORD.has((error as NodeJS.ErrnoException).code ?? '')) return [];
    throw error;
  }
}
