/**
 * The broadcast fan-out: one page of a broadcast's segment per queue message, never the whole
 * segment in one Lambda.
 *
 * For a page (100 contacts of the segment's member partition, after the broadcast's `cursor`):
 * the segment, topic and sending domain (its configuration set; a broadcast whose segment, topic
 * or domain was deleted ends `failed`), the contacts and their suppression entries (two
 * BatchGets), then an outcome per contact:
 * skipped (deleted since, unsubscribed, opted out of the broadcast's topic explicitly or by the
 * topic's opt_out default, suppressed), failed (the personalised email is over the size limit), or
 * an email (with `broadcast_id`, personalised, with RFC 8058 one-click unsubscribe headers)
 * accepted exactly as POST /emails accepts one, so the sending issue's pipeline sends it.
 *
 * No one gets a second copy: each contact's outcome is a recipient record put with
 * attribute_not_exists in the SAME transaction as its email, its email.queued event and the
 * broadcast's counters. A page is written in a few such transactions (at most 100 actions each);
 * if one fails because a recipient record exists (the page is being redone after a crash),
 * that chunk is redone one recipient at a time, skipping those already done, so the counters
 * count each recipient once. Then the page's emails are enqueued, also those an earlier attempt
 * made (if that fails, the due-email dispatcher sends them when their lease runs out) and the cursor moves, with a condition on
 * its old value; only then is the next page's message sent. A message whose `after` is not the
 * cursor is stale and dropped; a lost next-page message is re-sent by the due-broadcast
 * dispatcher when the broadcast's lease runs out.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { batchGet, getItem, isConditionFailed, put, queryPage, transact, transactionChunks, update, updateItem, type Item, type WriteAction } from '../platform/db/table';
import { FANOUT_LEASE_MS, type BroadcastItem } from './broadcasts';
import type { BroadcastStatus } from './model';
import { fanOutQueue, type FanOutMessage } from './queue';
import { findSendingDomain } from '../domains/domains';
import { addressDomain, emailExpiresAt, emailTransactionBytes, emailWrites, MAX_EMAIL_CONTENT_BYTES, SEND_LEASE_MS, type PreparedEmail } from '../emails/emails';
import { contentBytes, putEmailContents } from '../emails/content';
import { newId, nowIso } from '../platform/ids';
import { logger } from '../platform/log';
import { render, renderHeader, type Values } from '../templates/render';
import { maxSendRate } from '../emails/send-rate';
import { bulkSendQueue } from '../emails/send-queue';
import { unsubscribeToken, unsubscribeUrl } from './unsubscribe';

/** Contacts per queue message: two BatchGets of 100 keys and about 3-4 transactions. */
export const pageSize = (): number => Number(process.env.BROADCAST_PAGE_SIZE) || 100;
/** Recipient records expire after this; the broadcast is long finished by then. */
const RECIPIENT_TTL_SECONDS = 90 * 24 * 60 * 60;

const ACTIVE: readonly BroadcastStatus[] = ['scheduled', 'queued', 'sending'];

export type SkipReason = 'contact_deleted' | 'unsubscribed' | 'topic_opt_out' | 'suppressed';

type Plan =
  | { contactId: string; outcome: 'skipped'; reason: SkipReason; email?: string }
  | { contactId: string; outcome: 'failed'; reason: string; email: string }
  | ({ contactId: string; outcome: 'sent'; email: string; dueAt: string } & PreparedEmail);

/** A contact's effective subscription: its explicit one, else the topic's default. */
export function subscribedTo(contact: Item, topic: Item): boolean {
  const explicit = (contact.topics as Record<string, string> | undefined)?.[topic.id as string];
  return (explicit ?? topic.default_subscription) === 'opt_in';
}

/** The preheader (`preview_text`): hidden text at the top of the HTML that inboxes show after the subject. */
const preheader = (text: string) => `<div style="display:none;max-height:0;overflow:hidden;mso-hide:all" aria-hidden="true">${text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)}</div>`;

/** The contact's email: its item and its content (stored once, before the page's transactions). */
async function personalise(b: BroadcastItem, contact: Item, configurationSet: string): Promise<PreparedEmail> {
  const url = unsubscribeUrl(await unsubscribeToken({ projectId: b.project_id, contactId: contact.id as string, topicId: b.topic_id }));
  const properties = (contact.properties ?? {}) as Values;
  const values: Values = {
    ...properties,
    FIRST_NAME: (contact.first_name as string | null) ?? '',
    LAST_NAME: (contact.last_name as string | null) ?? '',
    EMAIL: contact.email as string,
    RESEND_UNSUBSCRIBE_URL: url,
  };
  const html = b.html === null ? null : render((b.preview_text ? preheader(b.preview_text) : '') + b.html, values, { missing: 'empty' }).text;
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
    text: b.text === null ? null : render(b.text, values, { missing: 'empty', escape: false }).text,
    headers: { 'List-Unsubscribe': `<${url}>`, 'List-Unsubscribe-Post': 'List-Unsubscribe=One-Click' },
  };
  return { item, content };
}

async function planPage(b: BroadcastItem, contactIds: string[], topic: Item | undefined, configurationSet: string): Promise<Plan[]> {
  const contacts = new Map((await batchGet(contactIds.map((id) => keys.contact(b.project_id, id)))).map((c) => [c.id as string, c]));
  const addresses = [...contacts.values()].map((c) => String(c.email).toLowerCase());
  const suppressed = new Set((await batchGet(addresses.map((a) => keys.suppression(b.project_id, a)))).map((s) => String(s.SK).slice('SUPPRESSION#'.length)));
  return Promise.all(
    contactIds.map(async (contactId): Promise<Plan> => {
      const contact = contacts.get(contactId);
      if (!contact) return { contactId, outcome: 'skipped', reason: 'contact_deleted' };
      const email = contact.email as string;
      if (contact.unsubscribed === true) return { contactId, outcome: 'skipped', reason: 'unsubscribed', email };
      if (topic && !subscribedTo(contact, topic)) return { contactId, outcome: 'skipped', reason: 'topic_opt_out', email };
      if (suppressed.has(email.toLowerCase())) return { contactId, outcome: 'skipped', reason: 'suppressed', email };
      const { item, content } = await personalise(b, contact, configurationSet);
      if (contentBytes(content) > MAX_EMAIL_CONTENT_BYTES) return { contactId, outcome: 'failed', reason: 'email_too_large', email };
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
      expires_at: Math.floor(Date.now() / 1000) + RECIPIENT_TTL_SECONDS,
    },
    { ifAbsent: { tag: 'recipient done', withItem: true } },
  );
  return plan.outcome === 'sent' ? [record, ...emailWrites(caller, plan.item, plan.dueAt)] : [record];
}

function counting(b: BroadcastItem, plans: Plan[]): WriteAction {
  const count = (outcome: Plan['outcome']) => plans.filter((p) => p.outcome === outcome).length;
  return update(keys.broadcast(b.project_id, b.id), {
    add: { count_recipients: plans.length, count_sent: count('sent'), count_skipped: count('skipped'), count_failed: count('failed') },
  });
}

/**
 * Writes the page's outcomes; returns the ids of the page's emails: those it created, and those
 * an earlier attempt of the page created (that attempt may have died before enqueueing them; a
 * second message for an email is harmless, the sender claims each email once).
 */
async function writePage(b: BroadcastItem, plans: Plan[]): Promise<string[]> {
  // a recipient with an email is 3 actions (its record, the email, its event), one skipped is its record; each chunk also counts
  const chunks = transactionChunks(plans, {
    actions: (plan) => (plan.outcome === 'sent' ? 3 : 1),
    bytes: (plan) => (plan.outcome === 'sent' ? emailTransactionBytes(plan.item) : 1024),
    reserved: 1, // the counter update
  });
  const emailIds: string[] = [];
  for (const chunk of chunks) {
    try {
      await transact([...chunk.flatMap((p) => planWrites(b, p)), counting(b, chunk)]);
      emailIds.push(...chunk.flatMap((p) => (p.outcome === 'sent' ? [p.item.id] : [])));
    } catch (error) {
      if (!isConditionFailed(error, 'recipient done')) throw error;
      // Part of this chunk was done by an earlier attempt: one recipient at a time, skipping those
      // (the failed condition brings their record, with the email that attempt created).
      for (const plan of chunk) {
        try {
          await transact([...planWrites(b, plan), counting(b, [plan])]);
          if (plan.outcome === 'sent') emailIds.push(plan.item.id);
        } catch (inner) {
          if (!isConditionFailed(inner, 'recipient done')) throw inner;
          if (typeof inner.item?.email_id === 'string') emailIds.push(inner.item.email_id);
        }
      }
    }
  }
  return emailIds;
}

/** The broadcast is still active and its cursor still `after`: no other message has done this page, nobody canceled it. */
const stillAt = (after: string) => ({
  expression: '#cursor = :after AND #status IN (:scheduled, :queued, :sending)',
  names: { '#cursor': 'cursor', '#status': 'status' },
  values: { ':after': after, ':scheduled': 'scheduled', ':queued': 'queued', ':sending': 'sending' },
});

async function finish(b: BroadcastItem, set: Item, after: string): Promise<void> {
  await updateItem(
    update(
      keys.broadcast(b.project_id, b.id),
      {
        set: { ...set, updated_at: nowIso() },
        ...(set.status === 'sending' ? {} : { remove: ['GSI1PK', 'GSI1SK'] }),
        condition: stillAt(after),
      },
      { tag: 'cursor moved' },
    ),
  );
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
  const now = Date.now();
  let place = b.count_sent ?? 0;
  for (const plan of plans) {
    if (plan.outcome !== 'sent') continue;
    plan.dueAt = new Date(now + SEND_LEASE_MS + Math.ceil((place++ / rate) * 1000)).toISOString();
  }
}
/** SES's default for a new production account, when GetAccount cannot be read. */
const DEFAULT_SEND_RATE = 14;

export type PageResult = 'next' | 'done' | 'stale' | 'failed';

/** Attempts at one page before the broadcast ends `failed` (counted in the broadcast item, not by receive count). */
export const MAX_PAGE_ATTEMPTS = 5;

/**
 * A page that threw: counted on the broadcast (`page_attempts`, reset when the cursor moves), and
 * at MAX_PAGE_ATTEMPTS the broadcast ends `failed` with the page and the error, so it never stays
 * `queued` or `sending` forever. False when the page is to be tried again.
 */
async function pageFailed(b: BroadcastItem, after: string, error: unknown): Promise<boolean> {
  const cause = `${(error as Error).name}: ${(error as Error).message}`.slice(0, 500);
  try {
    const counted = await updateItem(update(keys.broadcast(b.project_id, b.id), { add: { page_attempts: 1 }, set: { last_page_error: cause }, condition: stillAt(after) }, { tag: 'cursor moved' }));
    if (Number(counted.page_attempts) < MAX_PAGE_ATTEMPTS) return false;
    const reason = `the page of recipients ${after ? `after contact ${after}` : 'at the start of the segment'} failed ${MAX_PAGE_ATTEMPTS} times: ${cause}`;
    await finish(b, { status: 'failed', failure_reason: reason }, after);
    logger.error('broadcast failed', { broadcast_id: b.id, reason });
    return true;
  } catch (failure) {
    if (isConditionFailed(failure, 'cursor moved')) return true; // another attempt moved on, or it was canceled
    throw failure;
  }
}

/**
 * One page of the fan-out (see the module comment). Throws on faults (the message is retried),
 * until the page has failed MAX_PAGE_ATTEMPTS times: then the broadcast ends `failed`.
 */
export async function fanOutPage(message: FanOutMessage): Promise<PageResult> {
  const b = await getItem<BroadcastItem>(keys.broadcast(message.project_id, message.broadcast_id));
  if (!b || !ACTIVE.includes(b.status) || (b.cursor ?? '') !== message.after) return 'stale';
  const [segment, topic, domain] = await Promise.all([
    getItem(keys.segment(b.project_id, b.segment_id)),
    b.topic_id ? getItem(keys.topic(b.project_id, b.topic_id)) : Promise.resolve(undefined),
    findSendingDomain(b.project_id, addressDomain(b.from)),
  ]);
  try {
    if (!segment || (b.topic_id && !topic) || !domain) {
      const reason = !segment ? 'the segment was deleted' : !domain ? 'the sending domain was deleted' : 'the topic was deleted';
      await finish(b, { status: 'failed', failure_reason: reason }, message.after);
      logger.warn('broadcast failed', { broadcast_id: b.id, reason });
      return 'failed';
    }
    const page = await queryPage(keys.segmentMembers(b.project_id, b.segment_id), { limit: pageSize(), after: message.after || undefined });
    const contactIds = page.items.map((member) => member.contact_id as string);
    const plans = await planPage(b, contactIds, topic, domain.configuration_set);
    await spreadLeases(b, plans);
    // each email's content before the transactions that accept them (as POST /emails does)
    await putEmailContents(
      b.project_id,
      plans.flatMap((p) => (p.outcome === 'sent' ? [{ emailId: p.item.id, content: p.content }] : [])),
    );
    const emailIds = await writePage(b, plans);
    if (emailIds.length) {
      await bulkSendQueue
        .enqueue(emailIds.map((id) => ({ project_id: b.project_id, email_id: id })))
        .catch((error) => logger.warn('enqueue failed; the due-email dispatcher will send them', { error }));
    }
    const last = contactIds.at(-1) ?? message.after;
    if (!page.hasMore) {
      await finish(b, { status: 'sent', sent_at: nowIso(), cursor: last }, message.after);
      return 'done';
    }
    const lease = new Date(Date.now() + FANOUT_LEASE_MS).toISOString();
    await finish(b, { status: 'sending', cursor: last, page_attempts: 0, ...keys.broadcastDue(b.project_id, b.id, lease) }, message.after);
    await fanOutQueue
      .enqueue([{ project_id: b.project_id, broadcast_id: b.id, after: last }])
      .catch((error) => logger.warn('next page enqueue failed; the due-broadcast dispatcher will resume', { broadcast_id: b.id, error }));
    return 'next';
  } catch (error) {
    if (isConditionFailed(error, 'cursor moved')) return 'stale'; // canceled meanwhile, or another message did this page
    if (await pageFailed(b, message.after, error)) return 'failed';
    throw error;
  }
}
