/**
 * Filing received mail into inboxes: the inbound worker (shared/receiving/inbound.ts) hands each
 * stored received email here with the parsed message; every inbox of the project among its
 * recipients (keys.inboxAddress; a forwarding address through keys.inboxForward) gets it as a
 * message of a thread (./threading.ts chooses which: the ids it refers to, else subject and
 * participants within 14 days, else a new thread).
 *
 * One transaction per inbox: the message, its thread (created, or updated: count, newest time,
 * addresses, unread, back to `inbox` from `archive`/`sent`), the keys later messages thread by (its
 * Message-ID; subject x participant), the inbox's `unread`/`last_received`, and the events
 * `inbox.message.received` (+ `inbox.thread.created`), which carry the inbox's agent settings to
 * the team's own agent (webhooks) and feed the search index. A marker (keys.inboxMessageRef) put
 * with attribute_not_exists makes a redelivered notification file nothing twice; a thread changed
 * by a concurrent message is re-read and the filing tried again. The inbound worker files up to 5
 * messages at once: the threading keys a filing found missing (UnseenKeys: the ids it names that
 * the inbox has not seen, its own id, its subject per participant) are written only if still
 * missing, so of two messages of one conversation filed together one fails and, filed again,
 * finds the other's thread.
 *
 * The message keeps no body of its own: it is the received email's (same id), read from it; it
 * expires with it (INBOUND_RETENTION_DAYS), and its thread with its newest message.
 */
import * as keys from '../platform/db/keys';
import {
  batchGet,
  getItem,
  isConditionFailed,
  put,
  transactRetryingConflicts,
  update,
  type Item,
  type WriteAction,
} from '../platform/db/table';
import { eventWrite } from '../events/events';
import { newId } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { logger } from '../platform/log';
import type { ParsedMessage } from '../receiving/mime';
import { agentOf, forwardingDomain } from './inboxes';
import { countsUnread, newThreadItem } from './threads';
import {
  bareAddressOf,
  chooseThread,
  normalizeMessageId,
  normalizeSubject,
  participantsOf,
  referencedMessageIds,
  SUBJECT_WINDOW_MS,
  type ThreadingStore,
} from './threading';

const epochSeconds = (ms: number) => Math.floor(ms / 1000);
/** Rounds of choosing a thread for one message before its notification is left to SQS's retry (each round, at least one of the racing filings commits). */
const MAX_FILING_ATTEMPTS = 10;

/**
 * The threading keys a filing read and found missing (or stale), in the order it read them: its
 * transaction writes each of them only if it is still missing, so two messages of one
 * conversation filed at the same moment (concurrent invocations of the inbound worker) cannot both
 * miss each other and open two threads: one of them fails its condition and is filed again, and
 * then finds the other's thread.
 */
export interface UnseenKeys {
  messageIds: string[];
  subjectParticipants: string[];
}

/** The inbox's threading keys, read as chooseThread asks (a BatchGet for ids, a GetItem per participant); what was missing goes into `unseen`. */
export function threadingStore(projectId: string, inboxId: string, unseen?: UnseenKeys): ThreadingStore {
  const live = (item: Item | undefined) =>
    item && !(typeof item.expires_at === 'number' && item.expires_at * 1000 <= clockNow()) ? item : undefined;
  return {
    async threadOfMessageIds(ids) {
      if (!ids.length) return undefined;
      const wanted = ids.map((id) => keys.inboxMessageId(projectId, inboxId, id));
      const found = new Map((await batchGet(wanted)).map((item) => [item.SK as string, item]));
      for (const [i, key] of wanted.entries()) {
        const item = live(found.get(key.SK));
        if (item) return item.thread_id as string;
        unseen?.messageIds.push(ids[i]);
      }
      return undefined;
    },
    async threadOfSubject(subject, participant, sinceMs) {
      const item = live(await getItem(keys.inboxSubject(projectId, inboxId, subject, participant), false));
      if (item && Date.parse(item.last_at) >= sinceMs) return item.thread_id as string;
      unseen?.subjectParticipants.push(participant);
      return undefined;
    },
  };
}

/**
 * A threading key's item, put as it is, or (`unseen`) only while the key is still missing, expired
 * or (`staleBefore`, subject keys) older than the subject window: an update, since a put's only
 * condition here is "absent".
 */
function threadingKeyWrite(
  key: { PK: string; SK: string },
  attributes: Item,
  unseen: { nowSeconds: number; staleBefore?: string } | undefined,
): WriteAction {
  if (!unseen) return put({ ...key, ...attributes });
  const stale = unseen.staleBefore ? ' OR #last_at < :stale_before' : '';
  return update(
    key,
    {
      set: attributes,
      condition: {
        expression: `attribute_not_exists(PK) OR #expires_at <= :now_seconds${stale}`,
        names: { '#expires_at': 'expires_at', ...(unseen.staleBefore ? { '#last_at': 'last_at' } : {}) },
        values: {
          ':now_seconds': unseen.nowSeconds,
          ...(unseen.staleBefore ? { ':stale_before': unseen.staleBefore } : {}),
        },
      },
    },
    { tag: THREADING_RACED },
  );
}

const THREADING_RACED = 'threading raced';

/**
 * The keys that let later messages find this thread: its Message-ID, and (subject, participant)
 * for each participant; with `unseen` (what the filing's threading found missing), also the ids
 * the message names that the inbox has not seen, each of those keys written only if still missing.
 */
export function threadingKeyWrites(
  projectId: string,
  inboxId: string,
  threadId: string,
  message: {
    message_id: string | null;
    subject: string | null;
    participants: string[];
    at: string;
    expiresAt?: number;
  },
  unseen?: UnseenKeys,
): WriteAction[] {
  const writes: WriteAction[] = [];
  const nowSeconds = epochSeconds(clockNow());
  const own = message.message_id ? normalizeMessageId(message.message_id) : '';
  const ids = new Set([...(own ? [own] : []), ...(unseen?.messageIds ?? [])]);
  for (const id of ids)
    writes.push(
      threadingKeyWrite(
        keys.inboxMessageId(projectId, inboxId, id),
        {
          type: 'inbox_message_id',
          thread_id: threadId,
          ...(message.expiresAt ? { expires_at: message.expiresAt } : {}),
        },
        unseen?.messageIds.includes(id) ? { nowSeconds } : undefined,
      ),
    );
  const subject = normalizeSubject(message.subject);
  const staleBefore = new Date(Date.parse(message.at) - SUBJECT_WINDOW_MS).toISOString();
  if (subject)
    for (const participant of message.participants)
      writes.push(
        threadingKeyWrite(
          keys.inboxSubject(projectId, inboxId, subject, participant),
          {
            type: 'inbox_subject',
            thread_id: threadId,
            last_at: message.at,
            expires_at: epochSeconds(Date.parse(message.at) + SUBJECT_WINDOW_MS),
          },
          unseen?.subjectParticipants.includes(participant) ? { nowSeconds, staleBefore } : undefined,
        ),
      );
  return writes;
}

export interface FilingTarget {
  projectId: string;
  livemode: boolean;
  /** the envelope recipients of this project's domains (and forwarding addresses) */
  recipients: string[];
}

/** The inboxes of the project among the recipients: their address claims, then the inboxes (two BatchGets). */
async function inboxesFor(target: FilingTarget): Promise<Item[]> {
  const addresses = [...new Set(target.recipients.map(bareAddressOf).filter(Boolean))];
  if (!addresses.length) return [];
  const claims = await batchGet(addresses.map((a) => keys.inboxAddress(target.projectId, a)));
  if (!claims.length) return [];
  return batchGet(claims.map((c) => keys.inbox(target.projectId, c.inbox_id)));
}

/**
 * The projects and inboxes a forwarding address names (recipients at INBOX_FORWARDING_DOMAIN):
 * for the inbound worker, which has no domain of a project to take them by.
 */
export async function forwardingTargets(
  recipients: string[],
): Promise<Map<string, FilingTarget & { inboxIds: string[] }>> {
  const domain = forwardingDomain();
  const targets = new Map<string, FilingTarget & { inboxIds: string[] }>();
  if (!domain) return targets;
  const byLocalPart = new Map<string, string>();
  for (const recipient of recipients) {
    const address = bareAddressOf(recipient);
    if (address.endsWith(`@${domain}`)) byLocalPart.set(address.slice(0, -domain.length - 1), recipient);
  }
  if (!byLocalPart.size) return targets;
  const claims = await batchGet([...byLocalPart.keys()].map((local) => keys.inboxForward(local)));
  for (const claim of claims) {
    const target: FilingTarget & { inboxIds: string[] } = targets.get(claim.project_id) ?? {
      projectId: claim.project_id,
      livemode: claim.livemode !== false,
      recipients: [],
      inboxIds: [],
    };
    target.inboxIds.push(claim.inbox_id);
    target.recipients.push(byLocalPart.get(String(claim.PK).slice('INBOX_FORWARD#'.length))!);
    targets.set(claim.project_id, target);
  }
  return targets;
}

/** The message as threads keep it (no bodies: they are the received email's). */
function messageItem(projectId: string, inbox: Item, threadId: string, record: Item, refs: string[]): Item {
  return {
    ...keys.inboxMessage(projectId, inbox.id, threadId, record.id),
    type: 'inbox_message',
    id: record.id,
    thread_id: threadId,
    inbox_id: inbox.id,
    direction: 'inbound',
    from: record.from,
    to: record.to ?? [],
    cc: record.cc ?? [],
    bcc: record.bcc ?? [],
    reply_to: record.reply_to ?? [],
    subject: record.subject ?? null,
    message_id: record.message_id ?? null,
    references: refs,
    attachments: ((record.attachments ?? []) as Item[]).map((a) => ({
      id: a.id,
      filename: a.filename ?? null,
      size: a.size,
      content_type: a.content_type,
    })),
    received_at: record.created_at,
    ...(record.expires_at ? { expires_at: record.expires_at } : {}),
  };
}

/** Files one received email into one inbox; false when it was filed before. */
async function fileInto(target: FilingTarget, inbox: Item, record: Item, message: ParsedMessage): Promise<boolean> {
  const projectId = target.projectId;
  const caller = { projectId, livemode: target.livemode };
  const refKey = keys.inboxMessageRef(projectId, inbox.id, record.id);
  if (await getItem(refKey)) return false;
  const receivedAt = record.created_at as string;
  const arriving = {
    subject: message.subject,
    message_id: message.message_id,
    in_reply_to: message.headers['in-reply-to'] ?? null,
    references: message.headers.references ?? null,
    from: message.from,
    to: message.to,
    cc: message.cc,
    received_at_ms: Date.parse(receivedAt),
  };
  const refs = referencedMessageIds(arriving.in_reply_to, arriving.references);
  const participants = participantsOf(message, inbox.email_address);
  for (let attempt = 1; ; attempt++) {
    const unseen: UnseenKeys = { messageIds: [], subjectParticipants: [] };
    const { threadId: chosen, by } = await chooseThread(
      arriving,
      inbox.email_address,
      threadingStore(projectId, inbox.id, unseen),
    );
    const existing = chosen ? await getItem(keys.inboxThread(projectId, inbox.id, chosen)) : undefined;
    const live = existing && !(typeof existing.expires_at === 'number' && existing.expires_at * 1000 <= clockNow());
    const threadId = live ? existing.id : newId();
    const attachments = (record.attachments ?? []).length;
    const expiresAt = record.expires_at as number | undefined;
    const summary = { from: record.from, to: record.to ?? [], cc: record.cc ?? [], bcc: record.bcc ?? [] };
    const writes: WriteAction[] = [
      put(
        { ...refKey, type: 'inbox_message_ref', thread_id: threadId, ...(expiresAt ? { expires_at: expiresAt } : {}) },
        { ifAbsent: { tag: 'already filed' } },
      ),
      put(messageItem(projectId, inbox, threadId, record, refs)),
      ...threadingKeyWrites(
        projectId,
        inbox.id,
        threadId,
        {
          message_id: message.message_id,
          subject: message.subject,
          participants,
          at: receivedAt,
          expiresAt,
        },
        unseen,
      ),
    ];
    let unreadDelta: number;
    if (live) {
      const folder = existing.folder === 'archive' || existing.folder === 'sent' ? 'inbox' : existing.folder;
      const lastAt = [receivedAt, String(existing.last_at)].sort()[1]; // ISO times sort as strings
      const retained = Math.max(Number(existing.retained_until ?? 0), Number(expiresAt ?? 0)) || undefined;
      unreadDelta =
        Number(countsUnread({ read: false, folder })) -
        Number(countsUnread({ read: existing.read === true, folder: existing.folder }));
      writes.push(
        update(
          keys.inboxThread(projectId, inbox.id, threadId),
          {
            set: {
              ...summary,
              read: false,
              folder,
              last_at: lastAt,
              ...keys.inboxThreadInFolder(projectId, inbox.id, folder, lastAt, threadId),
              ...(retained ? { retained_until: retained } : {}),
              ...(existing.folder !== 'trash' && retained ? { expires_at: retained } : {}),
            },
            add: { email_count: 1, attachment_count: attachments },
            condition: {
              expression: 'attribute_exists(PK) AND #read = :read AND #folder = :folder AND #last = :last',
              names: { '#read': 'read', '#folder': 'folder', '#last': 'last_at' },
              values: { ':read': existing.read === true, ':folder': existing.folder, ':last': existing.last_at },
            },
          },
          { tag: 'thread moved' },
        ),
      );
    } else {
      unreadDelta = 1;
      writes.push(
        put(
          newThreadItem(projectId, inbox.id, threadId, {
            subject: record.subject ?? null,
            addresses: summary,
            attachments,
            at: receivedAt,
            direction: 'inbound',
            expiresAt,
          }),
        ),
      );
    }
    writes.push(
      update(
        keys.inbox(projectId, inbox.id),
        {
          set: { last_received: receivedAt },
          ...(unreadDelta ? { add: { unread: unreadDelta } } : {}),
          condition: { expression: 'attribute_exists(PK)' },
        },
        { tag: 'inbox gone' },
      ),
    );
    const agent = agentOf(inbox);
    const event = {
      object: 'inbox_email',
      id: record.id,
      inbox_id: inbox.id,
      thread_id: threadId,
      direction: 'inbound',
      from: record.from,
      to: record.to ?? [],
      cc: record.cc ?? [],
      subject: record.subject ?? null,
      message_id: record.message_id ?? null,
      received_at: receivedAt,
      threaded_by: live ? by : 'new',
      agent,
    };
    writes.push(eventWrite(caller, 'inbox.message.received', event));
    if (!live)
      writes.push(
        eventWrite(caller, 'inbox.thread.created', {
          object: 'inbox_thread',
          id: threadId,
          inbox_id: inbox.id,
          subject: record.subject ?? null,
          from: record.from,
          first_email_id: record.id,
          received_at: receivedAt,
          agent,
        }),
      );
    try {
      // every filing into the inbox updates its item (unread, last_received): concurrent ones conflict and wait their turn
      await transactRetryingConflicts(writes);
      return true;
    } catch (error) {
      if (isConditionFailed(error, 'already filed') || isConditionFailed(error, 'inbox gone')) return false;
      // a concurrent filing changed the thread or wrote a key this one read as missing: choose again
      const raced = isConditionFailed(error, 'thread moved') || isConditionFailed(error, THREADING_RACED);
      if (!raced || attempt >= MAX_FILING_ATTEMPTS) throw error;
    }
  }
}

/**
 * Files a stored received email into the inboxes among its recipients (`inboxIds`: those a
 * forwarding address named). Returns how many inboxes got it now.
 */
export async function fileReceivedEmail(
  target: FilingTarget & { inboxIds?: string[] },
  record: Item,
  message: ParsedMessage,
): Promise<number> {
  const byAddress = await inboxesFor(target);
  const forwarded = target.inboxIds?.length
    ? await batchGet(target.inboxIds.map((id) => keys.inbox(target.projectId, id)))
    : [];
  const inboxes = new Map([...byAddress, ...forwarded].map((inbox) => [inbox.id as string, inbox]));
  let filed = 0;
  for (const inbox of inboxes.values()) {
    try {
      if (await fileInto(target, inbox, record, message)) filed += 1;
    } catch (error) {
      logger.error('filing into an inbox failed', { inbox_id: inbox.id, received_email_id: record.id, error });
      throw error;
    }
  }
  return filed;
}
