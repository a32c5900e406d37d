/**
 * A project's mail from one of its domains, as a domain claim (shared/domains/claims.ts) asks about
 * the holder: did it send from the domain since the claim started (its objection), and does it still
 * have mail from it scheduled for later. Read from the keys the emails already keep, no Scan:
 * - sent since: the project's emails accepted after the moment (ids are UUIDv7: one range Query per
 *   shard from the moment's id, oldest first), checked for the From domain, stopping at the first
 *   match; at most SENT_SINCE_READ emails are read, and a holder that sent more than that since the
 *   claim started counts as active (it plainly uses the service; the claim cannot tell from which domain).
 * - scheduled: the domain's pending entries (keys.pendingEmailsFrom, as DELETE /domains reads them)
 *   and their emails' status.
 */
import * as keys from '../platform/db/keys';
import { batchGet, queryPage } from '../platform/db/table';
import type { EmailItem } from './item';
import { addressDomain } from './record';

/** Emails read at most to find one sent from the domain since the claim started. */
export const SENT_SINCE_READ = 1_000;
const PAGE = 100;

/** The smallest UUIDv7 of the millisecond `iso`: every id minted at or after it sorts after this one. */
function firstIdAt(iso: string): string {
  const hex = Date.parse(iso).toString(16).padStart(12, '0');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-7000-8000-000000000000`;
}

/** Whether the project accepted an email from `domainName` at or after `since` (ISO). */
export async function sentFromSince(projectId: string, domainName: string, since: string): Promise<boolean> {
  let cursor = firstIdAt(since);
  for (let read = 0; read < SENT_SINCE_READ; read += PAGE) {
    // `before` in the list's newest-first order: the emails after the cursor
    const { items, hasMore } = await queryPage<EmailItem>(keys.emails(projectId), { limit: PAGE, before: cursor });
    if (items.some((email) => addressDomain(email.from) === domainName)) return true;
    if (!hasMore || !items.length) return false;
    cursor = items[0].id; // the page's newest (a `before` page comes newest first too)
  }
  return true;
}

/** Whether the project has an email from `domainName` still scheduled for later. */
export async function scheduledFrom(projectId: string, domainName: string): Promise<boolean> {
  let after: string | undefined;
  for (;;) {
    const { items: entries, hasMore } = await queryPage(keys.pendingEmailsFrom(projectId, domainName), {
      limit: PAGE,
      after,
    });
    if (!entries.length) return false;
    const emails = await batchGet<EmailItem>(entries.map((entry) => keys.email(projectId, entry.email_id)));
    if (emails.some((email) => email.last_event === 'scheduled')) return true;
    if (!hasMore) return false;
    after = entries[entries.length - 1].email_id;
  }
}
