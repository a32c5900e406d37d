/**
 * A broadcast's recipients (GET /broadcasts/{id}/recipients): the fan-out's recipient records
 * (keys.broadcastRecipient: one per contact of the segment it handled, with its outcome, reason
 * and email id; shared/broadcasts/fanout.ts `planWrites`), each joined with its email's status now.
 *
 * 1. The broadcast (GetItem: an unknown id, or another project's, is 404) and, at once, a page of
 *    its records: a Query of each shard merged by contact id, newest contact first, `after` and
 *    `before` being contact ids like any list's cursor. With `email`: the project's contact with
 *    that address (its address claim, keys.contactEmail) and that contact's record, two GetItems.
 * 2. The emails of the page's sent recipients in one BatchGet (keys.email: emails are sharded by
 *    their own id, so every key is built, never searched).
 * 3. `status` is the email's `last_event`; a recipient that got no email shows its outcome,
 *    `skipped` or `failed`, with `reason`; a sent one whose email is past its retention
 *    (EMAIL_RETENTION_DAYS after it was sent) shows null, its `email_id` still there.
 *
 * The records expire 90 days after the fan-out wrote them (RECIPIENT_TTL_SECONDS): once DynamoDB's
 * TTL has removed them the list is empty, while the broadcast keeps its counters.
 *
 * Resend's `type` (the SDK requires it; `all` too) and `bounce_type` are accepted and not applied: filtering on
 * the joined status would need reads without bound before a page is full (a page of none, with
 * `has_more`, would leave the caller no cursor), so every recipient comes with its `status`.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { batchGet, getItem, queryPage, type Item, type Page, type PageRequest } from '../platform/db/table';
import { notFound } from '../platform/errors';
import { unexpired } from '../emails/emails';
import type { BroadcastRecipientRecord } from './model';

/** A record as the fan-out writes it. */
interface RecipientItem extends Item {
  contact_id: string;
  email: string | null;
  outcome: BroadcastRecipientRecord['outcome'];
  reason: string | null;
  email_id: string | null;
  created_at: string;
}

function toRecipient(r: RecipientItem, email: Item | undefined): BroadcastRecipientRecord {
  return {
    object: 'broadcast_recipient',
    id: r.contact_id,
    contact_id: r.contact_id,
    email: r.email ?? null,
    outcome: r.outcome,
    reason: r.reason ?? null,
    email_id: r.email_id ?? null,
    status: r.outcome === 'sent' ? ((email?.last_event as string | undefined) ?? null) : r.outcome,
    created_at: r.created_at,
  };
}

/** The recipient record of the project's contact with this address (any case), if it got one. */
async function recipientByAddress(projectId: string, broadcastId: string, address: string): Promise<RecipientItem[]> {
  const claim = await getItem(keys.contactEmail(projectId, address.trim()));
  if (!claim) return [];
  const record = await getItem<RecipientItem>(
    keys.broadcastRecipient(projectId, broadcastId, claim.contact_id as string),
  );
  return record ? [record] : [];
}

/** A page of the broadcast's recipients (see the module comment); with `email`, that contact's alone. */
export async function listRecipients(
  caller: Caller,
  broadcastId: string,
  page: PageRequest & { email?: string },
): Promise<Page<BroadcastRecipientRecord>> {
  const [broadcast, records] = await Promise.all([
    getItem(keys.broadcast(caller.projectId, broadcastId)),
    page.email === undefined
      ? queryPage<RecipientItem>(keys.broadcastRecipients(caller.projectId, broadcastId), page)
      : recipientByAddress(caller.projectId, broadcastId, page.email).then((items) => ({ items, hasMore: false })),
  ]);
  if (!broadcast) throw notFound('Broadcast', 'broadcast_id');
  const emailIds = records.items.flatMap((r) => (r.email_id ? [r.email_id] : []));
  const emails = new Map(
    (await batchGet(emailIds.map((id) => keys.email(caller.projectId, id)))).flatMap((e) =>
      unexpired(e) ? [[e.id as string, e] as const] : [],
    ),
  );
  return {
    items: records.items.map((r) => toRecipient(r, r.email_id ? emails.get(r.email_id) : undefined)),
    hasMore: records.hasMore,
  };
}
