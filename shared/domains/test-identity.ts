/**
 * A test twin's domains (shared/project/test-mode.ts) answer what ./identity.ts answers for SES,
 * without any AWS call: no identity, no configuration set, no MAIL FROM, no tenant. They behave
 * as the local SES stand-in's identities do (local/aws/ses-front.ts):
 * - created `pending` (DKIM and MAIL FROM), with three DKIM tokens derived from the domain id, so
 *   the records look like a live domain's and stay the same however often they are read;
 * - `verified` once TEST_DOMAIN_VERIFY_SECONDS (default 5) have passed since the domain's creation,
 *   or `failed` for a name under the reserved `.invalid` TLD, to try failures. Nothing changes by
 *   itself: the next check (POST /domains/{id}/verify, or the scheduled check every minute) reads
 *   the new status and stores it, with the same `domain.verified` / `domain.verification_failed`
 *   events as a live domain (livemode false);
 * - settings changes and removal have nothing to do: the domain's settings live in its item only.
 */
import { createHash } from 'node:crypto';
import type { Identities } from './identity';
import type { DomainStatus } from './model';
import { now as clockNow } from '../platform/clock';

/** How long after its creation a test domain verifies (TEST_DOMAIN_VERIFY_SECONDS, default 5 s; 0: at its first check). */
export function testVerifyMs(env: Record<string, string | undefined> = process.env): number {
  const seconds = Number(env.TEST_DOMAIN_VERIFY_SECONDS);
  return env.TEST_DOMAIN_VERIFY_SECONDS && seconds >= 0 ? seconds * 1000 : 5_000;
}

/** Three DKIM tokens of SES's length (32 characters), from the domain id. */
const dkimTokens = (domainId: string): string[] =>
  [1, 2, 3].map((n) => createHash('sha256').update(`test-dkim:${domainId}:${n}`).digest('hex').slice(0, 32));

function statusAt(domain: { name: string; created_at: string }, now = clockNow()): DomainStatus {
  if (now - Date.parse(domain.created_at) < testVerifyMs()) return 'pending';
  return domain.name.endsWith('.invalid') ? 'failed' : 'verified';
}

export const testIdentities: Identities = {
  create: async (_settings, domainId) => ({
    dkimTokens: dkimTokens(domainId),
    dkimStatus: 'pending',
    mailFromStatus: 'pending',
  }),
  read: async (domain) => {
    const status = statusAt(domain);
    return { dkimTokens: dkimTokens(domain.id), dkimStatus: status, mailFromStatus: status };
  },
  remove: async () => undefined,
  removeAbandoned: async () => false, // never asked: a test create never finds its name taken in SES
  updateSettings: async () => undefined,
};
