/**
 * Broadcasts: one message to every contact of a segment (optionally only those subscribed to a
 * topic), sent through the same pipeline as single emails.
 *
 * Lifecycle (`status`): draft -> scheduled (send with a future time) -> queued -> sending -> sent;
 * scheduled|queued|sending -> canceled; -> failed when the fan-out cannot go on (the segment or
 * the topic was deleted, the sending domain is gone). Only drafts can be edited or deleted.
 *
 * Sending is the fan-out of shared/broadcasts/fanout.ts, driven by the broadcast-fanout queue one
 * page of the segment at a time. A broadcast waiting for the fan-out carries a "due" entry on GSI1
 * (keys.broadcastDue): the scheduled time, or a lease while queued/sending that every page renews.
 * The due-broadcast dispatcher starts scheduled broadcasts and restarts a fan-out whose message was
 * lost (its lease ran out), from the broadcast's `cursor`.
 *
 * The html and text are an item of their own (keys.broadcastContent), written only while a draft:
 * the broadcast's item stays small, so the fan-out's many counter and cursor updates (each bills
 * the whole item, twice inside a transaction) cost a write unit or two instead of one per KB of html.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  bounded,
  del,
  getItem,
  isConditionFailed,
  put,
  queryPage,
  transact,
  update,
  updateItem,
  type Item,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { findSendingDomain, sendingDomainCheck, sendingDomainOf, sendingDomainProblems } from '../domains/domains';
import { addressDomain, MAX_SCHEDULE_AHEAD_MS } from '../emails/emails';
import { parseScheduledAt } from '../emails/schedule-phrase';
import { ApiError, conflict, notFound, unprocessable, type ErrorDetail } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { logger } from '../platform/log';
import { fanOutQueue } from './queue';
import type { BroadcastRecord, BroadcastStatus, CreateBroadcastInput, UpdateBroadcastInput } from './model';
import { projectSettings } from '../project/settings';
import { checkPlaceholders } from './placeholders';
import { sendingPaused } from '../emails/reputation';

/** How long a queued or sending broadcast may go without progress before the dispatcher restarts its fan-out. */
export const FANOUT_LEASE_MS = 5 * 60 * 1000;

export interface BroadcastItem extends Item {
  type: 'broadcast';
  project_id: string;
  id: string;
  name: string | null;
  segment_id: string;
  topic_id: string | null;
  from: string;
  subject: string;
  reply_to: string[] | null;
  preview_text: string | null;
  status: BroadcastStatus;
  created_at: string;
  updated_at: string;
  scheduled_at: string | null;
  sent_at: string | null;
  /** the counters, flat so each can be ADDed in the fan-out's transactions */
  count_recipients: number;
  count_sent: number;
  count_skipped: number;
  count_failed: number;
  /** set when sent: the mode of the key that sent it */
  livemode?: boolean;
  /** the fan-out's position: the last contact id of the last page claimed ('' before the first) */
  cursor?: string;
  /** fan-out pages claimed and not yet done (shared/broadcasts/fanout.ts) */
  pages_in_flight?: number;
  /** the last page of the segment has been claimed */
  exhausted?: boolean;
  failure_reason?: string;
}

/** A broadcast's html and text, in an item of their own. */
export interface BroadcastContent {
  html: string | null;
  text: string | null;
}

const contentItem = (projectId: string, broadcastId: string, content: BroadcastContent): Item => ({
  ...keys.broadcastContent(projectId, broadcastId),
  type: 'broadcast_content',
  html: content.html,
  text: content.text,
});

/** The content a content item holds (none: nothing). */
const contentOf = (item: Item | undefined): BroadcastContent => ({
  html: (item?.html as string | null) ?? null,
  text: (item?.text as string | null) ?? null,
});

/** The broadcast's content (the fan-out reads it once per page; it never changes once sent). */
export async function getBroadcastContent(
  projectId: string,
  broadcastId: string,
  consistent = true,
): Promise<BroadcastContent> {
  return contentOf(await getItem(keys.broadcastContent(projectId, broadcastId), consistent));
}

export function toBroadcast(item: Item, content: BroadcastContent): BroadcastRecord {
  const b = item as BroadcastItem;
  return {
    object: 'broadcast' as const,
    id: b.id,
    name: b.name ?? null,
    segment_id: b.segment_id,
    audience_id: b.segment_id,
    topic_id: b.topic_id ?? null,
    from: b.from,
    subject: b.subject,
    reply_to: b.reply_to ?? null,
    preview_text: b.preview_text ?? null,
    html: content.html,
    text: content.text,
    status: b.status,
    counters: {
      recipients: b.count_recipients ?? 0,
      sent: b.count_sent ?? 0,
      skipped: b.count_skipped ?? 0,
      failed: b.count_failed ?? 0,
    },
    created_at: b.created_at,
    scheduled_at: b.scheduled_at ?? null,
    sent_at: b.sent_at ?? null,
  };
}

const missing = () => notFound('Broadcast', 'broadcast_id');
const notDraft = (status: string) =>
  conflict('broadcast_not_draft', `Only a draft broadcast can be changed; this one is ${status}`);
const toList = (value: string | string[] | undefined): string[] | null =>
  value === undefined ? null : Array.isArray(value) ? value : [value];

/** A broadcast's html and text live in one item: well under DynamoDB's 400 KB item limit. */
export const MAX_BROADCAST_ITEM_BYTES = 350 * 1024;

/** A broadcast's content must fit its item (each of its emails' content is stored apart, shared/emails/content.ts). */
function checkSize(content: BroadcastContent): void {
  if (Buffer.byteLength(JSON.stringify(content)) > MAX_BROADCAST_ITEM_BYTES) {
    const message = `A broadcast's content may be at most ${MAX_BROADCAST_ITEM_BYTES / 1024} KB`;
    throw new ApiError(413, 'validation_error', message, [{ code: 'broadcast_too_large', message, path: 'html' }]);
  }
}

/** 422 for a segment or topic id that is not one of the project's. One BatchGet. */
async function checkAudience(
  caller: Caller,
  segmentId: string | undefined,
  topicId: string | null | undefined,
): Promise<void> {
  const wanted = [
    ...(segmentId ? [{ key: keys.segment(caller.projectId, segmentId), path: 'segment_id', what: 'segment' }] : []),
    ...(topicId ? [{ key: keys.topic(caller.projectId, topicId), path: 'topic_id', what: 'topic' }] : []),
  ];
  if (!wanted.length) return;
  const found = new Set((await batchGet(wanted.map((w) => w.key))).map((item) => item.SK as string));
  const problems = wanted
    .filter((w) => !found.has(w.key.SK))
    .map(
      (w): ErrorDetail => ({
        code: `${w.what}_not_found`,
        message: `No ${w.what} with this id in this project`,
        path: w.path,
      }),
    );
  if (problems.length) throw unprocessable(problems);
}

/**
 * Starts sending a draft (now, or at `scheduledAt`): `write` is the broadcast's write with the
 * sending fields, and it goes in one transaction with a ConditionCheck that the sending domain is
 * the project's, enabled and (live keys) verified, so sending reads nothing before the write.
 * When the check fails, the claim it failed on says why (422), or, should it show nothing wrong,
 * the transaction is tried once more. The fan-out reads the domain again for its configuration set.
 */
/** 403 while the reputation guard has paused the project (shared/emails/reputation.ts): its settings as the request's rate limit read them. */
async function refuseWhilePaused(caller: Caller): Promise<void> {
  if (!caller.livemode) return;
  const { sending_paused: paused } = await projectSettings(caller.projectId);
  if (paused) throw sendingPaused(paused);
}

async function startSending(
  caller: Caller,
  draft: { id: string; from: string },
  scheduledAt: string | undefined,
  write: (fields: Item) => WriteAction[],
): Promise<Item> {
  const domainName = addressDomain(draft.from);
  const domainProblems = async () =>
    sendingDomainProblems(caller, domainName, await findSendingDomain(caller.projectId, domainName), 'from');
  const now = clockNow();
  let at: string | null = null;
  if (scheduledAt) {
    const schedule = parseScheduledAt(scheduledAt, new Date(now)); // ISO 8601 or a phrase ("in 1 hour", counted from now)
    if ('error' in schedule)
      throw unprocessable([...(await domainProblems()), { ...schedule.error, path: 'scheduled_at' }]);
    const time = Date.parse(schedule.iso);
    if (time - now > MAX_SCHEDULE_AHEAD_MS) {
      throw unprocessable([
        ...(await domainProblems()),
        { code: 'too_far_ahead', message: 'scheduled_at may be at most 30 days ahead', path: 'scheduled_at' },
      ]);
    }
    if (time > now) at = schedule.iso; // a time already past sends now
  }
  const due = at ?? new Date(now + FANOUT_LEASE_MS).toISOString();
  const fields = {
    status: at ? 'scheduled' : 'queued',
    scheduled_at: at,
    livemode: caller.livemode,
    cursor: '',
    pages_in_flight: 0,
    exhausted: false,
    ...keys.broadcastDue(caller.projectId, draft.id, due),
  };
  const attempt = () =>
    transact([
      sendingDomainCheck(caller, domainName, { tag: 'domain not sendable', withItem: true }),
      ...write(fields),
    ]);
  try {
    await attempt();
  } catch (error) {
    if (!isConditionFailed(error, 'domain not sendable')) throw error;
    const problems = sendingDomainProblems(caller, domainName, sendingDomainOf(caller.projectId, error.item), 'from');
    if (problems.length) throw unprocessable(problems);
    await attempt(); // the check and the claim it brought disagree: try once more
  }
  return fields;
}

/** After the commit: if the message is lost, the dispatcher starts the fan-out when the lease runs out. */
async function startFanOut(projectId: string, broadcastId: string): Promise<void> {
  await fanOutQueue
    .enqueue([{ project_id: projectId, broadcast_id: broadcastId, after: '' }])
    .catch((error) => logger.warn('fan-out enqueue failed; the due-broadcast dispatcher will start it', { error }));
}

type Settings = Pick<
  BroadcastItem,
  'name' | 'segment_id' | 'topic_id' | 'from' | 'subject' | 'reply_to' | 'preview_text'
>;

/** A new draft with these settings: the one shape of a broadcast item that create and duplicate both write. */
function draftItem(caller: Caller, settings: Settings): BroadcastItem {
  const at = nowIso();
  const id = newId();
  return {
    ...keys.broadcast(caller.projectId, id),
    type: 'broadcast',
    project_id: caller.projectId,
    id,
    ...settings,
    status: 'draft',
    created_at: at,
    updated_at: at,
    scheduled_at: null,
    sent_at: null,
    count_recipients: 0,
    count_sent: 0,
    count_skipped: 0,
    count_failed: 0,
  };
}

export async function createBroadcast(caller: Caller, input: CreateBroadcastInput): Promise<BroadcastRecord> {
  const sendNow = input.send === true || input.scheduled_at !== undefined;
  await Promise.all([
    checkAudience(caller, input.segment_id, input.topic_id),
    checkPlaceholders(caller.projectId, input),
    sendNow ? refuseWhilePaused(caller) : undefined,
  ]);
  let item = draftItem(caller, {
    name: input.name ?? null,
    segment_id: input.segment_id,
    topic_id: input.topic_id ?? null,
    from: input.from,
    subject: input.subject,
    reply_to: toList(input.reply_to),
    preview_text: input.preview_text ?? null,
  });
  const content: BroadcastContent = { html: input.html ?? null, text: input.text ?? null };
  checkSize(content);
  const writes = (draft: BroadcastItem) => [put(draft), put(contentItem(caller.projectId, draft.id, content))];
  if (sendNow) {
    const draft = item;
    item = {
      ...item,
      ...(await startSending(caller, item, input.scheduled_at, (fields) => writes({ ...draft, ...fields }))),
    };
  } else {
    await transact(writes(item));
  }
  if (item.status === 'queued') await startFanOut(caller.projectId, item.id);
  return toBroadcast(item, content);
}

async function load(caller: Caller, broadcastId: string): Promise<BroadcastItem> {
  const item = await getItem<BroadcastItem>(keys.broadcast(caller.projectId, broadcastId));
  if (!item) throw missing();
  return item;
}

/** The broadcast and its content (two GetItems at once). */
async function loadWithContent(
  caller: Caller,
  broadcastId: string,
): Promise<{ item: BroadcastItem; content: BroadcastContent }> {
  const [item, content] = await Promise.all([
    load(caller, broadcastId),
    getBroadcastContent(caller.projectId, broadcastId),
  ]);
  return { item, content };
}

export async function getBroadcast(caller: Caller, broadcastId: string): Promise<BroadcastRecord> {
  const { item, content } = await loadWithContent(caller, broadcastId);
  return toBroadcast(item, content);
}

/** A page of broadcasts with their content (one BatchGet), cut short at MAX_PAGE_BYTES like any list. */
export async function listBroadcasts(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage<BroadcastItem>(keys.broadcasts(caller.projectId), page);
  const contents = new Map(
    (await batchGet(items.map((b) => keys.broadcastContent(caller.projectId, b.id)))).map((c) => [c.SK as string, c]),
  );
  const records = items.map((b) =>
    toBroadcast(b, contentOf(contents.get(keys.broadcastContent(caller.projectId, b.id).SK))),
  );
  const bound = bounded(records, records.length);
  return { records: bound.items, hasMore: hasMore || bound.hasMore };
}

const IS_DRAFT = { expression: '#status = :draft', names: { '#status': 'status' }, values: { ':draft': 'draft' } };

/** A draft only: the condition makes a draft sent meanwhile a 409, not a lost edit. */
export async function updateBroadcast(
  caller: Caller,
  broadcastId: string,
  input: UpdateBroadcastInput,
): Promise<BroadcastRecord> {
  const { item: current, content: currentContent } = await loadWithContent(caller, broadcastId);
  if (current.status !== 'draft') throw notDraft(current.status);
  // only what the request changes: content stored before a property was deleted may still name it
  await Promise.all([
    checkAudience(caller, input.segment_id, input.topic_id),
    checkPlaceholders(caller.projectId, input),
  ]);
  const { html, text, ...settings } = input;
  const changes: Item = { updated_at: nowIso() };
  for (const [field, value] of Object.entries(settings)) {
    if (value !== undefined) changes[field] = field === 'reply_to' ? toList(value as string | string[]) : value;
  }
  const content: BroadcastContent = {
    html: html === undefined ? currentContent.html : html,
    text: text === undefined ? currentContent.text : text,
  };
  if (content.html === null && content.text === null)
    throw unprocessable([{ code: 'invalid_value', message: 'html or text is required', path: 'html' }]);
  checkSize(content);
  const contentChanged = html !== undefined || text !== undefined;
  await transact([
    update(keys.broadcast(caller.projectId, broadcastId), { set: changes, condition: IS_DRAFT }, () =>
      notDraft('no longer a draft'),
    ),
    ...(contentChanged ? [put(contentItem(caller.projectId, broadcastId, content))] : []),
  ]);
  return toBroadcast({ ...current, ...changes }, content);
}

export async function deleteBroadcast(caller: Caller, broadcastId: string): Promise<void> {
  const current = await load(caller, broadcastId);
  if (current.status !== 'draft') throw notDraft(current.status);
  await transact([
    del(keys.broadcast(caller.projectId, broadcastId), {
      ifUnchanged: { expected: { status: 'draft' }, onChanged: () => notDraft('no longer a draft') },
    }),
    del(keys.broadcastContent(caller.projectId, broadcastId)),
  ]);
}

export async function sendBroadcast(
  caller: Caller,
  broadcastId: string,
  scheduledAt: string | undefined,
): Promise<BroadcastRecord> {
  const [current] = await Promise.all([load(caller, broadcastId), refuseWhilePaused(caller)]);
  if (current.status !== 'draft') throw notDraft(current.status);
  const updatedAt = nowIso();
  const [fields, content] = await Promise.all([
    startSending(caller, current, scheduledAt, (fields) => [
      update(
        keys.broadcast(caller.projectId, broadcastId),
        { set: { ...fields, updated_at: updatedAt }, condition: IS_DRAFT },
        () => notDraft('no longer a draft'),
      ),
    ]),
    getBroadcastContent(caller.projectId, broadcastId),
  ]);
  const updated = { ...current, ...fields, updated_at: updatedAt } as BroadcastItem;
  if (updated.status === 'queued') await startFanOut(caller.projectId, broadcastId);
  return toBroadcast(updated, content);
}

const CANCELABLE: readonly BroadcastStatus[] = ['scheduled', 'queued', 'sending'];

export async function cancelBroadcast(caller: Caller, broadcastId: string): Promise<BroadcastRecord> {
  const current = await load(caller, broadcastId);
  const refuse = (status: string) =>
    conflict(
      'broadcast_not_cancelable',
      `Only a scheduled, queued or sending broadcast can be canceled; this one is ${status}`,
    );
  if (!CANCELABLE.includes(current.status)) throw refuse(current.status);
  const [updated, content] = await Promise.all([
    updateItem<BroadcastItem>(
      update(
        keys.broadcast(caller.projectId, broadcastId),
        {
          set: { status: 'canceled', updated_at: nowIso() },
          remove: ['GSI1PK', 'GSI1SK'],
          condition: {
            expression: '#status IN (:a, :b, :c)',
            names: { '#status': 'status' },
            values: { ':a': 'scheduled', ':b': 'queued', ':c': 'sending' },
          },
        },
        () => refuse('finished meanwhile'),
      ),
    ),
    getBroadcastContent(caller.projectId, broadcastId),
  ]);
  return toBroadcast(updated, content);
}

export async function duplicateBroadcast(caller: Caller, broadcastId: string): Promise<BroadcastRecord> {
  const { item, content } = await loadWithContent(caller, broadcastId);
  const { name, segment_id, topic_id, from, subject, reply_to, preview_text } = item;
  const copy = draftItem(caller, { name, segment_id, topic_id, from, subject, reply_to, preview_text });
  await transact([put(copy), put(contentItem(caller.projectId, copy.id, content))]);
  return toBroadcast(copy, content);
}
