/**
 * The broadcast fan-out: one page of a broadcast's segment per queue message, never the whole
 * segment in one Lambda, and several pages of one broadcast at once, as many as the send rate needs.
 *
 * Claiming a page: a message `{after}` whose `after` is the broadcast's `cursor` reads the next 100
 * members of the segment after it and, in one transaction, moves the cursor past them, counts a page
 * in flight (`pages_in_flight`; `exhausted` when it was the segment's last) and puts the page's
 * record (keys.broadcastPage: its contact ids and attempts). While fewer pages than the send rate
 * needs (fanOutParallelism) are in flight, the claim at once sends the message for the next page, so
 * pages run side by side; otherwise the next page waits for one to finish.
 *
 * Doing a page: the segment, topic and sending domain (its configuration set; a broadcast whose
 * segment, topic or domain was deleted ends `failed`), the project's contact property schema (each
 * contact's `{{{KEY}}}` renders its value, else the property's `fallback_value`; shared/broadcasts/placeholders.ts), the contacts and their suppression entries
 * (two BatchGets), then an outcome per contact: skipped (deleted since, unsubscribed, opted out of
 * the broadcast's topic explicitly or by the topic's opt_out default, suppressed), failed (the
 * personalised email is over the size limit, or the project's send quota has no room left for it:
 * `daily_quota_exceeded`, `monthly_quota_exceeded`), or an email (with `broadcast_id`, personalised, with
 * RFC 8058 one-click unsubscribe headers) accepted exactly as POST /emails accepts one, so the
 * sending pipeline sends it. Then the page's emails are enqueued (if that fails, the due-email
 * dispatcher sends them when their lease runs out), and one transaction deletes the page's record
 * and counts it out. The page that leaves nothing in flight after the last claim marks the
 * broadcast `sent`; any other sends the message for the cursor's page (a duplicate is stale).
 *
 * No one gets a second copy: each contact's outcome is a recipient record put with
 * attribute_not_exists in the SAME transaction as its email, its email.queued event and the
 * broadcast's counters, in chunks within DynamoDB's 100 actions and 4 MB. A redelivered page finds
 * its record and is done again from the same contact ids, less the recipients whose records an
 * earlier attempt wrote (`leftToWrite`: one BatchGet, before any content is stored again); a chunk
 * that still fails because a recipient record exists (another attempt writing it meanwhile) is
 * redone one recipient at a time, skipping those done, so the counters count each recipient once. A message that is neither a page in flight nor the cursor's is stale and dropped.
 * Lost messages are re-sent by the due-broadcast dispatcher when the broadcast's lease (renewed by
 * every claim and every page done) runs out: the cursor's, and one per page record left.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  getItem,
  isConditionFailed,
  put,
  queryPage,
  transactionChunks,
  transactRetryingConflicts,
  update,
  updateItem,
  type Item,
  type WriteAction,
} from '../platform/db/table';
import { FANOUT_LEASE_MS, getBroadcastContent, type BroadcastContent, type BroadcastItem } from './broadcasts';
import type { BroadcastStatus } from './model';
import { fanOutQueue, type FanOutMessage } from './queue';
import { findSendingDomain } from '../domains/domains';
import { readPropertySchema, type PropertySchema } from '../audience/contact-properties';
import {
  addressDomain,
  emailExpiresAt,
  emailTransactionBytes,
  emailWrites,
  MAX_EMAIL_CONTENT_BYTES,
  SEND_LEASE_MS,
  type PreparedEmail,
} from '../emails/emails';
import { contentBytes, putEmailContents } from '../emails/content';
import { newId, nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { logger } from '../platform/log';
import { render, renderHeader } from '../templates/render';
import { contactValues } from './placeholders';
import { maxSendRate } from '../emails/send-rate';
import { sendQueueOf } from '../emails/send-queue';
import { unsubscribeToken, unsubscribeUrl } from './unsubscribe';
import { projectSettings, type ProjectSettings } from '../project/settings';
import { subscribedTo } from '../audience/topic-subscriptions';
import { quotaTag, quotaUsage, quotaWrites } from '../project/quota';

/** Contacts per queue message: two BatchGets of 100 keys and about 3-4 transactions. */
export const pageSize = (): number => Number(process.env.BROADCAST_PAGE_SIZE) || 100;
/** Recipient and page records expire after this; the broadcast is long finished by then. */
const RECIPIENT_TTL_SECONDS = 90 * 24 * 60 * 60;

/**
 * Emails a second one chain of pages makes: a page of 100 takes about 2 s (two BatchGets, 100
 * content puts, 3-4 transactions), so one chain keeps up with SES's default 14/s with room to spare.
 */
const CHAIN_EMAILS_PER_SECOND = 50;
/** Pages of one broadcast in flight at most (the fan-out function's maxConcurrency is 10, functions/workers.ts). */
export const MAX_PAGES_IN_FLIGHT = 8;
/** Pages of one broadcast in flight at once: as many chains as the account's send rate needs. */
export const fanOutParallelism = (rate: number): number =>
  Math.min(MAX_PAGES_IN_FLIGHT, Math.max(1, Math.ceil(rate / CHAIN_EMAILS_PER_SECOND)));

/**
 * A claimed page (keys.broadcastPage): the contacts it is to do, whatever the segment does
 * meanwhile, and the queue message doing it (`claimed_by`, until `lease_until`). Another message for
 * the same page (the claim and a page done can both send the cursor's) is dropped while the lease
 * lasts, so no page runs twice at once; after it, the next message takes the page over.
 */
interface PageItem extends Item {
  after: string;
  contact_ids: string[];
  attempts?: number;
  claimed_by: string;
  lease_until: string;
}

const pageLease = () => new Date(clockNow() + FANOUT_LEASE_MS).toISOString();

/** The page for `messageId` to do: its own (a redelivery), or one whose lease ran out (taken over); undefined for another message's. */
async function ownPage(b: BroadcastItem, page: PageItem, messageId: string): Promise<PageItem | undefined> {
  if (page.claimed_by === messageId) return page;
  if (Date.parse(page.lease_until) > clockNow()) return undefined;
  try {
    // (a record from before pages named their message has no owner: the first message takes it)
    const condition = page.claimed_by
      ? { expression: 'claimed_by = :owner', values: { ':owner': page.claimed_by } }
      : { expression: 'attribute_not_exists(claimed_by)' };
    return await updateItem<PageItem>(
      update(
        keys.broadcastPage(b.project_id, b.id, page.after),
        { set: { claimed_by: messageId, lease_until: pageLease() }, condition },
        { tag: 'page taken' },
      ),
    );
  } catch (error) {
    if (isConditionFailed(error, 'page taken')) return undefined;
    throw error;
  }
}

const ACTIVE: readonly BroadcastStatus[] = ['scheduled', 'queued', 'sending'];

export type SkipReason = 'contact_deleted' | 'unsubscribed' | 'topic_opt_out' | 'suppressed';

type Plan =
  | { contactId: string; outcome: 'skipped'; reason: SkipReason; email?: string }
  | { contactId: string; outcome: 'failed'; reason: string; email: string }
  | ({ contactId: string; outcome: 'sent'; email: string; dueAt: string } & PreparedEmail);

/** The preheader (`preview_text`): hidden text at the top of the HTML that inboxes show after the subject. */
const preheader = (text: string) =>
  `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all" aria-hidden="true">${text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</div>`;

/** The contact's email: its item and its content (stored once, before the page's transactions). */
async function personalise(
  b: BroadcastItem,
  source: BroadcastContent,
  contact: Item,
  schema: PropertySchema,
  configurationSet: string,
): Promise<PreparedEmail> {
  const url = unsubscribeUrl(
    await unsubscribeToken({ projectId: b.project_id, contactId: contact.id as string, topicId: b.topic_id }),
  );
  const values = contactValues(contact, schema, url);
  const html =
    source.html === null
      ? null
      : render((b.preview_text ? preheader(b.preview_text) : '') + source.html, values, { missing: 'empty' }).text;
  const createdAt = nowIso();
  const item = {
    object: 'email' as const,
    id: newId(),
    project_id: b.project_id,
    livemode: b.livemode ?? true,
    message_id: null,
    from: b.from,
    to: [contact.email as string],
    cc: [],
    bcc: [],
    reply_to: b.reply_to ?? [],
    subject: renderHeader(b.subject, values, { missing: 'empty' }).text,
    tags: [],
    last_event: 'queued' as const,
    scheduled_at: null,
    created_at: createdAt,
    configuration_set: configurationSet,
    broadcast_id: b.id,
    expires_at: emailExpiresAt(createdAt),
  };
  const content = {
    html,
    text: source.text === null ? null : render(source.text, values, { missing: 'empty', escape: false }).text,
    headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
  return { item, content };
}

async function planPage(
  b: BroadcastItem,
  source: BroadcastContent,
  contactIds: string[],
  topic: Item | undefined,
  schema: PropertySchema,
  configurationSet: string,
): Promise<Plan[]> {
  const contacts = new Map(
    (await batchGet(contactIds.map((id) => keys.contact(b.project_id, id)))).map((c) => [c.id as string, c]),
  );
  const addresses = [...contacts.values()].map((c) => String(c.email).toLowerCase());
  const suppressed = new Set(
    (await batchGet(addresses.map((a) => keys.suppression(b.project_id, a)))).map((s) =>
      String(s.SK).slice('SUPPRESSION#'.length),
    ),
  );
  return Promise.all(
    contactIds.map(async (contactId): Promise<Plan> => {
      const contact = contacts.get(contactId);
      if (!contact) return { contactId, outcome: 'skipped', reason: 'contact_deleted' };
      const email = contact.email as string;
      if (contact.unsubscribed === true) return { contactId, outcome: 'skipped', reason: 'unsubscribed', email };
      if (topic && !subscribedTo(contact, topic))
        return { contactId, outcome: 'skipped', reason: 'topic_opt_out', email };
      if (suppressed.has(email.toLowerCase())) return { contactId, outcome: 'skipped', reason: 'suppressed', email };
      const { item, content } = await personalise(b, source, contact, schema, configurationSet);
      if (contentBytes(content) > MAX_EMAIL_CONTENT_BYTES)
        return { contactId, outcome: 'failed', reason: 'email_too_large', email };
      return { contactId, outcome: 'sent', email, item, content, dueAt: '' };
    }),
  );
}

function planWrites(b: BroadcastItem, plan: Plan): WriteAction[] {
  const caller: Caller = { projectId: b.project_id, livemode: b.livemode ?? true, permission: 'full_access' };
  const record = put(
    {
      ...keys.broadcastRecipient(b.project_id, b.id, plan.contactId),
      type: 'broadcast_recipient',
      project_id: b.project_id,
      broadcast_id: b.id,
      contact_id: plan.contactId,
      email: plan.email ?? null,
      outcome: plan.outcome,
      reason: plan.outcome === 'sent' ? null : plan.reason,
      email_id: plan.outcome === 'sent' ? plan.item.id : null,
      created_at: nowIso(),
      expires_at: Math.floor(clockNow() / 1000) + RECIPIENT_TTL_SECONDS,
    },
    { ifAbsent: { tag: 'recipient done', withItem: true } },
  );
  return plan.outcome === 'sent' ? [record, ...emailWrites(caller, plan.item, plan.dueAt)] : [record];
}

function counting(b: BroadcastItem, plans: Plan[]): WriteAction {
  const count = (outcome: Plan['outcome']) => plans.filter((p) => p.outcome === outcome).length;
  return update(keys.broadcast(b.project_id, b.id), {
    add: {
      count_recipients: plans.length,
      count_sent: count('sent'),
      count_skipped: count('skipped'),
      count_failed: count('failed'),
    },
  });
}

/**
 * The page's plans with as many recipients sent as the project's send quotas still have room for
 * (read now): the others fail with the quota's reason (`daily_quota_exceeded`), recorded like
 * every other outcome, never dropped.
 */
async function withinQuota(b: BroadcastItem, plans: Plan[], settings: ProjectSettings): Promise<Plan[]> {
  const usage = await quotaUsage(b.project_id);
  const room = (quota: number | null, used: number) =>
    quota === null ? Number.POSITIVE_INFINITY : Math.max(0, quota - used);
  const daily = room(settings.daily_quota, usage.daily);
  const monthly = room(settings.monthly_quota, usage.monthly);
  let left = Math.min(daily, monthly);
  const reason = daily <= monthly ? 'daily_quota_exceeded' : 'monthly_quota_exceeded';
  return plans.map(
    (plan): Plan =>
      plan.outcome !== 'sent' || left-- > 0
        ? plan
        : { contactId: plan.contactId, outcome: 'failed', reason, email: plan.email },
  );
}

/** Tries `write` with the quota writes of `plans`' emails; when a quota refuses them, again with the recipients that fit. */
async function writeCounted(
  b: BroadcastItem,
  plans: Plan[],
  settings: ProjectSettings | undefined,
  write: (plans: Plan[], counted: WriteAction[]) => Promise<void>,
): Promise<Plan[]> {
  let current = plans;
  for (let attempt = 1; ; attempt++) {
    const sent = current.filter((p) => p.outcome === 'sent').length;
    try {
      await write(current, settings && sent ? quotaWrites(b.project_id, sent, settings) : []);
      return current;
    } catch (error) {
      const quotaRefused =
        settings && (isConditionFailed(error, quotaTag('daily')) || isConditionFailed(error, quotaTag('monthly')));
      if (!quotaRefused || attempt >= 5) throw error; // five times: other sends of the project keep taking the room (the message is retried)
      current = await withinQuota(b, current, settings);
    }
  }
}

/**
 * Writes the page's outcomes; returns the ids of the page's emails: those it created, and those
 * an earlier attempt of the page created (that attempt may have died before enqueueing them; a
 * second message for an email is harmless, the sender claims each email once). Each transaction
 * also counts its emails against the project's send quotas (shared/project/quota.ts).
 */
async function writePage(b: BroadcastItem, plans: Plan[]): Promise<string[]> {
  const live = b.livemode !== false; // test mode is not counted
  // the counters go in the page's transactions: the main ones under a quota, else a shard (shared/project/quota.ts)
  const settings = live ? await projectSettings(b.project_id) : undefined;
  // a recipient with an email is 3 actions (its record, the email, its event), one skipped is its record; each chunk also counts
  const chunks = transactionChunks(plans, {
    actions: (plan) => (plan.outcome === 'sent' ? 3 : 1),
    bytes: (plan) => (plan.outcome === 'sent' ? emailTransactionBytes(plan.item) : 1024),
    reserved: 3, // the counter update and the two quota counters
  });
  const emailIds: string[] = [];
  const sentIds = (written: Plan[]) => written.flatMap((p) => (p.outcome === 'sent' ? [p.item.id] : []));
  for (const chunk of chunks) {
    try {
      const written = await writeCounted(b, chunk, settings, (current, counted) =>
        transactRetryingConflicts([...current.flatMap((p) => planWrites(b, p)), counting(b, current), ...counted]),
      );
      emailIds.push(...sentIds(written));
    } catch (error) {
      if (!isConditionFailed(error, 'recipient done')) throw error;
      // Part of this chunk was done by an earlier attempt: one recipient at a time, skipping those
      // (the failed condition brings their record, with the email that attempt created).
      for (const plan of chunk) {
        try {
          const written = await writeCounted(b, [plan], settings, (current, counted) =>
            transactRetryingConflicts([...planWrites(b, current[0]), counting(b, current), ...counted]),
          );
          emailIds.push(...sentIds(written));
        } catch (inner) {
          if (!isConditionFailed(inner, 'recipient done')) throw inner;
          if (typeof inner.item?.email_id === 'string') emailIds.push(inner.item.email_id);
        }
      }
    }
  }
  return emailIds;
}

/**
 * A page tried before (its record was found: the earlier attempt died or timed out): the recipients
 * that attempt wrote (one BatchGet of their records) are left out before anything is stored or
 * written again, and their emails' ids come from the records. So a retry costs what is left of the
 * page, not a transaction per recipient, and a page that ran out of time once finishes the next time.
 */
async function leftToWrite(b: BroadcastItem, plans: Plan[]): Promise<{ plans: Plan[]; writtenEmailIds: string[] }> {
  const records = await batchGet(plans.map((p) => keys.broadcastRecipient(b.project_id, b.id, p.contactId)));
  const written = new Set(records.map((r) => r.contact_id as string));
  return {
    plans: plans.filter((p) => !written.has(p.contactId)),
    writtenEmailIds: records.flatMap((r) => (typeof r.email_id === 'string' ? [r.email_id] : [])),
  };
}

const ACTIVE_CONDITION = '#status IN (:scheduled, :queued, :sending)';
const ACTIVE_VALUES = { ':scheduled': 'scheduled', ':queued': 'queued', ':sending': 'sending' };
/** The broadcast is still active: nobody canceled it, it has not ended. */
const stillActive = { expression: ACTIVE_CONDITION, names: { '#status': 'status' }, values: ACTIVE_VALUES };
/** ... and its cursor still `after`, its last page not yet claimed: no other message claimed this page. */
const stillAt = (after: string) => ({
  expression: `#cursor = :after AND (attribute_not_exists(#exhausted) OR #exhausted = :no) AND ${ACTIVE_CONDITION}`,
  names: { '#cursor': 'cursor', '#exhausted': 'exhausted', '#status': 'status' },
  values: { ':after': after, ':no': false, ...ACTIVE_VALUES },
});
/** ... and every page claimed is done: the broadcast is sent. */
const allDone = {
  expression: `#exhausted = :yes AND #inFlight = :zero AND ${ACTIVE_CONDITION}`,
  names: { '#exhausted': 'exhausted', '#inFlight': 'pages_in_flight', '#status': 'status' },
  values: { ':yes': true, ':zero': 0, ...ACTIVE_VALUES },
};

const leaseFields = (b: BroadcastItem) => ({
  ...keys.broadcastDue(b.project_id, b.id, new Date(clockNow() + FANOUT_LEASE_MS).toISOString()),
  updated_at: nowIso(),
});

/** Ends the broadcast (`sent` or `failed`): off the due index. */
async function finish(b: BroadcastItem, set: Item, condition: typeof stillActive): Promise<void> {
  await updateItem(
    update(
      keys.broadcast(b.project_id, b.id),
      { set: { ...set, updated_at: nowIso() }, remove: ['GSI1PK', 'GSI1SK'], condition },
      { tag: 'cursor moved' },
    ),
  );
}

/**
 * Claims the page after `after` (see the module comment); undefined when another message claimed
 * it first. Sends the next page's message when the broadcast has room for another page in flight.
 */
async function claimPage(b: BroadcastItem, after: string, messageId: string): Promise<PageItem | undefined> {
  const members = await queryPage(keys.segmentMembers(b.project_id, b.segment_id), {
    limit: pageSize(),
    after: after || undefined,
  });
  const contactIds = members.items.map((member) => member.contact_id as string);
  const last = contactIds.at(-1) ?? after;
  const page: PageItem = {
    ...keys.broadcastPage(b.project_id, b.id, after),
    type: 'broadcast_page',
    after,
    contact_ids: contactIds,
    attempts: 0,
    claimed_by: messageId,
    lease_until: pageLease(),
    expires_at: Math.floor(clockNow() / 1000) + RECIPIENT_TTL_SECONDS,
  };
  try {
    // pages side by side complete on the broadcast item while this claims: a conflict only means "not now"
    await transactRetryingConflicts([
      update(
        keys.broadcast(b.project_id, b.id),
        {
          set: { status: 'sending', cursor: last, exhausted: !members.hasMore, claim_attempts: 0, ...leaseFields(b) },
          add: { pages_in_flight: 1 },
          condition: stillAt(after),
        },
        { tag: 'cursor moved' },
      ),
      put(page, { ifAbsent: { tag: 'cursor moved' } }),
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'cursor moved')) return undefined;
    throw error;
  }
  const rate = await maxSendRate().catch(() => DEFAULT_SEND_RATE);
  if (members.hasMore && (b.pages_in_flight ?? 0) + 1 < fanOutParallelism(rate)) {
    await fanOutQueue.enqueue([{ project_id: b.project_id, broadcast_id: b.id, after: last }]).catch((error) =>
      logger.warn('next page enqueue failed; a page done or the due-broadcast dispatcher will go on', {
        broadcast_id: b.id,
        error,
      }),
    );
  }
  return page;
}

/** The page is done: its record goes and it is counted out, together, once. False when another attempt did it first, or the broadcast ended meanwhile. */
async function completePage(b: BroadcastItem, page: PageItem): Promise<boolean> {
  try {
    // the broadcast item is shared by the pages in flight and the next claim (see claimPage)
    await transactRetryingConflicts([
      del(keys.broadcastPage(b.project_id, b.id, page.after), { ifExists: { tag: 'page done' } }),
      update(
        keys.broadcast(b.project_id, b.id),
        { add: { pages_in_flight: -1 }, set: leaseFields(b), condition: stillActive },
        { tag: 'cursor moved' },
      ),
    ]);
    return true;
  } catch (error) {
    if (isConditionFailed(error, 'page done') || isConditionFailed(error, 'cursor moved')) return false;
    throw error;
  }
}

/**
 * After a page: the broadcast is `sent` when its last page was claimed and none is in flight;
 * otherwise the cursor's page gets a message (stale if a claim already sent it).
 */
async function goOn(projectId: string, broadcastId: string): Promise<PageResult> {
  const b = await getItem<BroadcastItem>(keys.broadcast(projectId, broadcastId));
  if (!b || !ACTIVE.includes(b.status)) return 'stale';
  if (b.exhausted && (b.pages_in_flight ?? 0) === 0) {
    try {
      await finish(b, { status: 'sent', sent_at: nowIso() }, allDone);
      return 'done';
    } catch (error) {
      if (isConditionFailed(error, 'cursor moved')) return 'stale'; // another page finished it
      throw error;
    }
  }
  if (!b.exhausted) {
    await fanOutQueue
      .enqueue([{ project_id: b.project_id, broadcast_id: b.id, after: b.cursor ?? '' }])
      .catch((error) =>
        logger.warn('next page enqueue failed; the due-broadcast dispatcher will resume', {
          broadcast_id: b.id,
          error,
        }),
      );
  }
  return 'next';
}

/**
 * A broadcast's emails wait in the send queue at the account's send rate: 100,000 at 14/s is two
 * hours. Each gets a send lease that lasts until about when its turn comes (its place in the
 * broadcast over the rate, plus the usual lease), so the due-email dispatcher does not enqueue the
 * whole backlog again every two minutes; an email that is still waiting after that is enqueued
 * again as any email is.
 */
async function spreadLeases(b: BroadcastItem, plans: Plan[]): Promise<void> {
  const rate = await maxSendRate().catch(() => DEFAULT_SEND_RATE);
  const now = clockNow();
  let place = b.count_sent ?? 0;
  for (const plan of plans) {
    if (plan.outcome !== 'sent') continue;
    plan.dueAt = new Date(now + SEND_LEASE_MS + Math.ceil((place++ / rate) * 1000)).toISOString();
  }
}
/** SES's default for a new production account, when GetAccount cannot be read. */
const DEFAULT_SEND_RATE = 14;

export type PageResult = 'next' | 'done' | 'stale' | 'failed';

/** Attempts at one page before the broadcast ends `failed` (counted in the page's record, not by receive count). */
export const MAX_PAGE_ATTEMPTS = 5;

/** The reason a broadcast fails with after a page's MAX_PAGE_ATTEMPTS. */
const failureReason = (after: string, cause: string) =>
  `the page of recipients ${after ? `after contact ${after}` : 'at the start of the segment'} failed ${MAX_PAGE_ATTEMPTS} times: ${cause}`;
const causeOf = (error: unknown) => `${(error as Error).name}: ${(error as Error).message}`.slice(0, 500);

/** Counts a failed attempt (`counted`: the item's count afterwards); at MAX_PAGE_ATTEMPTS the broadcast ends `failed`. True when it has ended. */
async function failedAttempt(
  b: BroadcastItem,
  after: string,
  cause: string,
  count: () => Promise<Item>,
  attempts: string,
): Promise<boolean> {
  try {
    if (Number((await count())[attempts]) < MAX_PAGE_ATTEMPTS) return false;
    const reason = failureReason(after, cause);
    await finish(b, { status: 'failed', failure_reason: reason }, stillActive);
    logger.error('broadcast failed', { broadcast_id: b.id, reason });
    return true;
  } catch (failure) {
    if (isConditionFailed(failure, 'page done') || isConditionFailed(failure, 'cursor moved')) return true; // another attempt did it, or the broadcast ended
    throw failure;
  }
}

/**
 * A page that threw: counted in its record, and at MAX_PAGE_ATTEMPTS the broadcast ends `failed`
 * with the page and the error, so it never stays `queued` or `sending` forever. False when the page
 * is to be tried again.
 */
function pageFailed(b: BroadcastItem, page: PageItem, error: unknown): Promise<boolean> {
  const cause = causeOf(error);
  const key = keys.broadcastPage(b.project_id, b.id, page.after);
  const count = () =>
    updateItem(
      update(
        key,
        { add: { attempts: 1 }, set: { last_error: cause }, condition: { expression: 'attribute_exists(PK)' } },
        { tag: 'page done' },
      ),
    );
  return failedAttempt(b, page.after, cause, count, 'attempts');
}

/** A claim that threw (no page record yet): counted on the broadcast (`claim_attempts`, reset by each claim), likewise. */
function claimFailed(b: BroadcastItem, after: string, error: unknown): Promise<boolean> {
  const cause = causeOf(error);
  const count = () =>
    updateItem(
      update(
        keys.broadcast(b.project_id, b.id),
        { add: { claim_attempts: 1 }, set: { last_page_error: cause }, condition: stillAt(after) },
        { tag: 'cursor moved' },
      ),
    );
  return failedAttempt(b, after, cause, count, 'claim_attempts');
}

/**
 * One message of the fan-out (see the module comment); `messageId` is the queue's id of it (the
 * same on each redelivery). Throws on faults (the message is retried), until the page has failed
 * MAX_PAGE_ATTEMPTS times: then the broadcast ends `failed`.
 */
export async function fanOutPage(message: FanOutMessage, messageId: string): Promise<PageResult> {
  const b = await getItem<BroadcastItem>(keys.broadcast(message.project_id, message.broadcast_id));
  if (!b || !ACTIVE.includes(b.status)) return 'stale';
  const found = await getItem<PageItem>(keys.broadcastPage(b.project_id, b.id, message.after));
  let page = found && (await ownPage(b, found, messageId));
  if (found && !page) return 'stale'; // another message is doing this page
  if (!page) {
    if ((b.cursor ?? '') !== message.after) return 'stale'; // a page done, or a duplicate
    if (b.exhausted) return goOn(b.project_id, b.id); // every page claimed: ends the broadcast if none is left in flight
  }
  const [segment, topic, domain, source, schema] = await Promise.all([
    getItem(keys.segment(b.project_id, b.segment_id)),
    b.topic_id ? getItem(keys.topic(b.project_id, b.topic_id)) : Promise.resolve(undefined),
    findSendingDomain(b.project_id, addressDomain(b.from)),
    getBroadcastContent(b.project_id, b.id, false), // written only while a draft
    readPropertySchema(b.project_id), // the contact properties' fallbacks, read once per page
  ]);
  try {
    if (!segment || (b.topic_id && !topic) || !domain) {
      const reason = !segment
        ? 'the segment was deleted'
        : !domain
          ? 'the sending domain was deleted'
          : 'the topic was deleted';
      await finish(b, { status: 'failed', failure_reason: reason }, stillActive);
      logger.warn('broadcast failed', { broadcast_id: b.id, reason });
      return 'failed';
    }
    page ??= await claimPage(b, message.after, messageId);
    if (!page) return 'stale'; // another message claimed it first
    const planned = await planPage(b, source, page.contact_ids, topic, schema, domain.configuration_set);
    const { plans, writtenEmailIds } = found ? await leftToWrite(b, planned) : { plans: planned, writtenEmailIds: [] };
    await spreadLeases(b, plans);
    // each email's content before the transactions that accept them (as POST /emails does)
    await putEmailContents(
      b.project_id,
      plans.flatMap((p) => (p.outcome === 'sent' ? [{ emailId: p.item.id, content: p.content }] : [])),
    );
    const emailIds = [...writtenEmailIds, ...(await writePage(b, plans))];
    if (emailIds.length) {
      await sendQueueOf(b.project_id, 'bulk')
        .enqueue(emailIds.map((id) => ({ project_id: b.project_id, email_id: id })))
        .catch((error) => logger.warn('enqueue failed; the due-email dispatcher will send them', { error }));
    }
    if (!(await completePage(b, page))) return 'stale';
    return await goOn(b.project_id, b.id);
  } catch (error) {
    if (isConditionFailed(error, 'cursor moved')) return 'stale'; // canceled or ended meanwhile
    if (page && (await pageFailed(b, page, error))) return 'failed';
    if (!page && (await claimFailed(b, message.after, error))) return 'failed';
    throw error;
  }
}
