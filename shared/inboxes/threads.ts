/**
 * An inbox's threads and their messages, as the API reads and changes them. Filing a message into
 * a thread is ./filing.ts (inbound) and ./outbound.ts (replies, forwards, drafts sent).
 *
 * A thread item (keys.inboxThread) is the conversation's summary: subject, the newest message's
 * addresses, label ids, counts, `read`, `folder`, and the time of its newest message (`last_at`,
 * the API's `received_at`), which orders the lists: the thread sits in its folder's GSI1
 * partition under that time, so GET .../threads is one Query per folder asked for (merged) and a
 * BatchGet of the page. `labels` and `read` filter the folder's threads as they are read (a
 * page reads on until it is full), so a filter that matches few threads of a large folder reads
 * more of it.
 *
 * Folders: `inbox` holds conversations with mail from outside; `sent` one the inbox started
 * (moves to `inbox` when an answer comes); `archive`, `spam`, `trash` are where a user moves one.
 * An answer to an archived thread brings it back to `inbox`; one to a thread in spam or trash
 * leaves it there. A thread in trash expires 30 days after it was moved there (TTL).
 *
 * Read state: the thread's `read` and `read_at`; a message is read when it is outbound or arrived
 * before the thread was last marked read. The inbox's `unread` counts threads that are unread and
 * in neither spam nor trash, changed in the same transaction as the thread (conditional on the
 * state read, so two requests never count one change twice).
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  getItem,
  isConditionFailed,
  queryGsi1Page,
  queryPage,
  transact,
  update,
  type Item,
  type PageRequest,
} from '../platform/db/table';
import { notFound, unprocessable } from '../platform/errors';
import { nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import { getObject } from '../platform/aws/s3';
import { getEmailContent } from '../emails/content';
import { toSummary } from '../emails/record';
import { cutToJsonBytes, type StoredBody } from '../receiving/received-emails';
import { readInbox } from './inboxes';
import { MAX_LABELS, type Folder, type Message, type Thread, type ThreadSummary } from './model';

export const missingThread = () => notFound('Thread', 'thread_id');
export const missingMessage = () => notFound('Email', 'email_id');
/** Trash is emptied 30 days after a thread was moved there (TTL). */
export const TRASH_DAYS = 30;
/** The folders a list shows when it names none: everything but spam and trash. */
export const DEFAULT_FOLDERS: Folder[] = ['inbox', 'sent', 'archive'];

/** A new thread's item, made by its first message: inbound (in `inbox`, unread) or sent by the inbox (in `sent`, read). */
export function newThreadItem(
  projectId: string,
  inboxId: string,
  threadId: string,
  first: {
    subject: string | null;
    addresses: { from: string; to: string[]; cc: string[]; bcc: string[] };
    attachments: number;
    at: string;
    direction: 'inbound' | 'outbound';
    expiresAt?: number;
  },
): Item {
  const folder: Folder = first.direction === 'inbound' ? 'inbox' : 'sent';
  return {
    ...keys.inboxThread(projectId, inboxId, threadId),
    ...keys.inboxThreadInFolder(projectId, inboxId, folder, first.at, threadId),
    type: 'inbox_thread',
    id: threadId,
    inbox_id: inboxId,
    subject: first.subject,
    ...first.addresses,
    labels: [],
    email_count: 1,
    attachment_count: first.attachments,
    draft_count: 0,
    read: first.direction === 'outbound',
    ...(first.direction === 'outbound' ? { read_at: first.at } : {}),
    folder,
    last_at: first.at,
    created_at: first.at,
    ...(first.expiresAt ? { retained_until: first.expiresAt, expires_at: first.expiresAt } : {}),
  };
}

/** Whether the thread counts in the inbox's `unread`. */
export const countsUnread = (thread: { read: boolean; folder: string }) =>
  !thread.read && thread.folder !== 'trash' && thread.folder !== 'spam';

export type LabelNames = Map<string, { id: string; name: string; color: string }>;

/** The inbox's labels by id (one Query: an inbox has at most MAX_LABELS). */
export async function labelsOf(projectId: string, inboxId: string): Promise<LabelNames> {
  const { items } = await queryPage(keys.inboxLabels(projectId, inboxId), { limit: MAX_LABELS });
  return new Map(items.map((l) => [l.id, { id: l.id, name: l.name, color: l.color }]));
}

const threadLabels = (item: Item, labels: LabelNames) =>
  ((item.labels ?? []) as string[]).flatMap((id) => (labels.has(id) ? [labels.get(id)!] : []));

export const toThread = (item: Item, labels: LabelNames): Thread => ({
  id: item.id,
  subject: item.subject ?? null,
  from: item.from ?? null,
  to: item.to ?? [],
  cc: item.cc ?? [],
  bcc: item.bcc ?? [],
  labels: threadLabels(item, labels),
  email_count: Number(item.email_count ?? 0),
  has_attachment: Number(item.attachment_count ?? 0) > 0,
  has_draft: Number(item.draft_count ?? 0) > 0,
  read: item.read === true,
  received_at: item.last_at,
  folder: item.folder,
});

export const toThreadSummary = (item: Item, labels: LabelNames): ThreadSummary => ({
  object: 'inbox_thread',
  id: item.id,
  subject: item.subject ?? null,
  folder: item.folder,
  labels: threadLabels(item, labels),
  read: item.read === true,
});

export async function readThread(projectId: string, inboxId: string, threadId: string): Promise<Item> {
  const item = await getItem(keys.inboxThread(projectId, inboxId, threadId));
  if (!item || isExpired(item)) throw missingThread();
  return item;
}

/** TTL deletes within days, not at once: an expired thread is gone for the API already. */
const isExpired = (item: Item) => typeof item.expires_at === 'number' && item.expires_at * 1000 <= clockNow();

export interface ThreadFilter {
  folders?: Folder[];
  labels?: string[];
  read?: boolean;
}

/** The GSI1 position of a thread (a list cursor): its folder partition's sort key. */
const positionOf = (item: Item) => `${item.last_at}#${item.id}`;

/**
 * One page of the inbox's threads, newest activity first. `after`/`before`: a thread id of the
 * list; its current position is read (a thread that moved since keeps its place in time).
 */
export async function listThreads(caller: Caller, idOrAddress: string, filter: ThreadFilter, page: PageRequest) {
  const inbox = await readInbox(caller, idOrAddress);
  const labelsRead = labelsOf(caller.projectId, inbox.id); // beside the folder queries
  labelsRead.catch(() => undefined); // awaited below; not unhandled when a folder query throws first
  const folders = filter.folders?.length ? filter.folders : DEFAULT_FOLDERS;
  const partitions = folders.map((f) => keys.inboxFolder(caller.projectId, inbox.id, f));
  const cursorId = page.before ?? page.after;
  let cursor: string | undefined;
  if (cursorId) {
    const at = await getItem(keys.inboxThread(caller.projectId, inbox.id, cursorId));
    if (!at)
      throw unprocessable([
        {
          code: 'invalid_cursor',
          message: 'must be the id of a thread of this inbox',
          path: page.before ? 'before' : 'after',
        },
      ]);
    cursor = positionOf(at);
  }
  const backwards = page.before !== undefined;
  const wanted = (item: Item) =>
    folders.includes(item.folder) &&
    !isExpired(item) &&
    (filter.read === undefined || (item.read === true) === filter.read) &&
    (!filter.labels?.length || filter.labels.some((l) => (item.labels ?? []).includes(l)));
  const found: Item[] = [];
  let hasMore = false;
  // read the folders' pages until the filtered page is full (without filters: one round)
  for (;;) {
    const chunk = await queryGsi1Page(partitions, {
      limit: filter.read === undefined && !filter.labels?.length ? page.limit : Math.max(page.limit, 50),
      ...(backwards ? { before: cursor } : { after: cursor }),
    });
    const inOrder = backwards ? [...chunk.items].reverse() : chunk.items; // away from the cursor
    for (const item of inOrder) {
      cursor = item.GSI1SK;
      if (!wanted(item)) continue;
      if (found.length === page.limit) {
        hasMore = true;
        break;
      }
      found.push(item);
    }
    if (hasMore || !chunk.hasMore) break;
  }
  const labels = await labelsRead;
  const ordered = backwards ? found.reverse() : found;
  return { records: ordered.map((item) => toThread(item, labels)), hasMore };
}

export async function getThread(caller: Caller, idOrAddress: string, threadId: string): Promise<ThreadSummary> {
  const inbox = await readInbox(caller, idOrAddress);
  const [item, labels] = await Promise.all([
    readThread(caller.projectId, inbox.id, threadId),
    labelsOf(caller.projectId, inbox.id),
  ]);
  return toThreadSummary(item, labels);
}

/** The writes that move a thread to `folder` and/or mark it read/unread, with the inbox's counter; conditional on the state read. */
export function threadStateWrites(
  projectId: string,
  inboxId: string,
  thread: Item,
  change: { read?: boolean; folder?: Folder },
) {
  const folder = change.folder ?? thread.folder;
  const read = change.read ?? thread.read === true;
  const now = nowIso();
  const set: Item = { read, folder, updated_at: now };
  if (change.read === true && thread.read !== true) set.read_at = now;
  const remove: string[] = [];
  if (folder !== thread.folder) {
    Object.assign(set, keys.inboxThreadInFolder(projectId, inboxId, folder, thread.last_at, thread.id));
    if (folder === 'trash') {
      set.trashed_at = now;
      set.expires_at = Math.min(
        Number(thread.expires_at ?? Number.POSITIVE_INFINITY),
        Math.floor(clockNow() / 1000) + TRASH_DAYS * 24 * 60 * 60,
      );
    } else if (thread.folder === 'trash') {
      remove.push('trashed_at');
      set.expires_at = thread.retained_until ?? null;
    }
  }
  if (set.expires_at === null || set.expires_at === Number.POSITIVE_INFINITY) {
    delete set.expires_at;
    remove.push('expires_at');
  }
  const delta =
    Number(countsUnread({ read, folder })) -
    Number(countsUnread({ read: thread.read === true, folder: thread.folder }));
  return [
    update(
      keys.inboxThread(projectId, inboxId, thread.id),
      {
        set,
        ...(remove.length ? { remove } : {}),
        condition: {
          expression: 'attribute_exists(PK) AND #read = :read AND #folder = :folder',
          names: { '#read': 'read', '#folder': 'folder' },
          values: { ':read': thread.read === true, ':folder': thread.folder },
        },
      },
      { tag: 'thread moved' },
    ),
    ...(delta ? [update(keys.inbox(projectId, inboxId), { add: { unread: delta } })] : []),
  ];
}

/** PATCH a thread: `read` and/or `folder` (not `sent`: the schema refuses it). A concurrent change is re-read and applied again. */
export async function updateThread(
  caller: Caller,
  idOrAddress: string,
  threadId: string,
  change: { read?: boolean; folder?: Folder },
): Promise<ThreadSummary> {
  const inbox = await readInbox(caller, idOrAddress);
  for (let attempt = 1; ; attempt++) {
    const thread = await readThread(caller.projectId, inbox.id, threadId);
    try {
      await transact(threadStateWrites(caller.projectId, inbox.id, thread, change));
      const labels = await labelsOf(caller.projectId, inbox.id);
      return toThreadSummary(
        { ...thread, read: change.read ?? thread.read, folder: change.folder ?? thread.folder },
        labels,
      );
    } catch (error) {
      if (!isConditionFailed(error, 'thread moved') || attempt >= 3) throw error;
    }
  }
}

/**
 * Deletes the thread (404 after at once) with the inbox's counters; then its messages and drafts'
 * links, in pages (a message without its thread is never read: the API reaches messages only
 * through their thread).
 */
export async function deleteThread(caller: Caller, idOrAddress: string, threadId: string): Promise<void> {
  const inbox = await readInbox(caller, idOrAddress);
  const thread = await readThread(caller.projectId, inbox.id, threadId);
  const unread = countsUnread({ read: thread.read === true, folder: thread.folder }) ? -1 : 0;
  await transact([
    del(keys.inboxThread(caller.projectId, inbox.id, threadId), { ifExists: missingThread }),
    ...(unread ? [update(keys.inbox(caller.projectId, inbox.id), { add: { unread } })] : []),
  ]);
  for (;;) {
    const { items, hasMore } = await queryPage(keys.inboxThreadMessages(caller.projectId, inbox.id, threadId), {
      limit: 25,
    });
    if (items.length) await transact(items.map((m) => del({ PK: m.PK, SK: m.SK })));
    if (!hasMore) break;
  }
}

/** Labels on a thread: add (union), set (replace) or remove one. Every id must be a label of the inbox (422 otherwise). */
export async function changeThreadLabels(
  caller: Caller,
  idOrAddress: string,
  threadId: string,
  change: { add?: string[]; set?: string[]; remove?: string },
) {
  const inbox = await readInbox(caller, idOrAddress);
  const [thread, labels] = await Promise.all([
    readThread(caller.projectId, inbox.id, threadId),
    labelsOf(caller.projectId, inbox.id),
  ]);
  const named = [...(change.add ?? []), ...(change.set ?? [])];
  const unknown = named.filter((id) => !labels.has(id));
  if (unknown.length)
    throw unprocessable(
      unknown.map((id) => ({ code: 'unknown_label', message: `no label ${id} in this inbox`, path: 'labels' })),
    );
  if (change.remove && !labels.has(change.remove)) throw notFound('Label', 'label_id');
  const current = ((thread.labels ?? []) as string[]).filter((id) => labels.has(id));
  const next = change.set
    ? [...new Set(change.set)]
    : change.add
      ? [...new Set([...current, ...change.add])]
      : current.filter((id) => id !== change.remove);
  await transact([
    update(
      keys.inboxThread(caller.projectId, inbox.id, threadId),
      { set: { labels: next, updated_at: nowIso() }, condition: { expression: 'attribute_exists(PK)' } },
      missingThread,
    ),
  ]);
  return { object: 'list' as const, data: next.map((id) => labels.get(id)!) };
}

// Messages

/** Bodies per message and per page of an answer (Lambda answers at most 6 MB). */
export const MESSAGE_BODY_BYTES = 4 * 1024 * 1024;
export const PAGE_BODY_BYTES = 5 * 1024 * 1024;

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value ?? null), 'utf8');

/** The message's bodies: the received email's (item or object), or the sent email's content. */
async function bodyOf(projectId: string, message: Item, received: Map<string, Item>): Promise<StoredBody> {
  if (message.direction === 'outbound') {
    const content = await getEmailContent(projectId, message.id);
    return { headers: {}, text: content?.text ?? null, html: content?.html ?? null };
  }
  const record = received.get(message.id);
  if (!record) return { headers: {}, text: null, html: null }; // past the receiving retention
  if (record.body_key) {
    const stored = await getObject(record.body_key);
    return stored ? (JSON.parse(stored.toString('utf8')) as StoredBody) : { headers: {}, text: null, html: null };
  }
  return { headers: {}, text: record.text ?? null, html: record.html ?? null };
}

const cut = (body: StoredBody, budget: number) => {
  const text = body.text ?? '';
  const html = body.html ?? '';
  if (jsonBytes(text) + jsonBytes(html) <= budget) return { text: body.text, html: body.html, truncated: false };
  const share = (part: string) => Math.floor((budget * part.length) / (text.length + html.length));
  return {
    text: body.text === null ? null : cutToJsonBytes(text, share(text)),
    html: body.html === null ? null : cutToJsonBytes(html, share(html)),
    truncated: true,
  };
};

/** A message is read when it is outbound, or arrived before the thread was last marked read (and it still is). */
export const isRead = (message: Item, thread: Item) =>
  message.direction === 'outbound' ||
  (thread.read === true && !!thread.read_at && message.received_at <= thread.read_at);

function toMessage(
  message: Item,
  thread: Item,
  body: { text: string | null; html: string | null; truncated: boolean },
): Message {
  return {
    object: 'inbox_email',
    id: message.id,
    thread_id: message.thread_id,
    direction: message.direction,
    from: message.from ?? '',
    to: message.to ?? [],
    cc: message.cc ?? [],
    bcc: message.bcc ?? [],
    reply_to: message.reply_to ?? [],
    subject: message.subject ?? null,
    message_id: message.message_id ?? null,
    html: body.html,
    text: body.text,
    truncated: body.truncated,
    attachments: ((message.attachments ?? []) as Item[]).map((a) => ({
      id: a.id,
      filename: a.filename ?? null,
      size: a.size ?? null,
      content_type: a.content_type ?? 'application/octet-stream',
    })),
    read: isRead(message, thread),
    received_at: message.received_at,
  };
}

export const messageBodies = (projectId: string, thread: Item, messages: Item[]): Promise<Message[]> =>
  bodiesOf(
    projectId,
    messages.map((message) => [thread, message] as const),
  );

/** Messages of any threads with their bodies, each with its thread: one BatchGet per direction for them all. */
export async function bodiesOf(projectId: string, pairs: readonly (readonly [Item, Item])[]): Promise<Message[]> {
  // an inbound message's bodies are its received email's; an outbound one's Message-ID is its email's (SES's, once sent)
  const [received, sent] = await Promise.all(
    (['inbound', 'outbound'] as const).map(async (direction) => {
      const ids = pairs.filter(([, m]) => m.direction === direction).map(([, m]) => m.id as string);
      const key = direction === 'inbound' ? keys.receivedEmail : keys.email;
      return new Map((await batchGet(ids.map((id) => key(projectId, id)))).map((r) => [r.id as string, r]));
    }),
  );
  const budget = Math.min(MESSAGE_BODY_BYTES, Math.floor(PAGE_BODY_BYTES / Math.max(1, pairs.length)));
  return Promise.all(
    pairs.map(async ([thread, message]) => {
      const m =
        message.direction === 'outbound' && sent.has(message.id)
          ? { ...message, message_id: toSummary(sent.get(message.id)!).message_id }
          : message;
      return toMessage(m, thread, cut(await bodyOf(projectId, m, received), budget));
    }),
  );
}

/** The thread's messages, oldest first (ids are UUIDv7 in arrival order), with their bodies. */
export async function listThreadMessages(caller: Caller, idOrAddress: string, threadId: string, page: PageRequest) {
  const inbox = await readInbox(caller, idOrAddress);
  const thread = await readThread(caller.projectId, inbox.id, threadId);
  // queryPage answers newest first: read away from the cursor (up from `after`, down from `before`) and turn it round
  const collection = keys.inboxThreadMessages(caller.projectId, inbox.id, threadId);
  const { items: newestFirst, hasMore } = await queryPage(
    collection,
    page.before ? { limit: page.limit, after: page.before } : { limit: page.limit, before: page.after ?? '' },
  );
  const items = [...newestFirst].reverse();
  return { records: await messageBodies(caller.projectId, thread, items), hasMore };
}

export async function getThreadMessage(caller: Caller, idOrAddress: string, threadId: string, messageId: string) {
  const inbox = await readInbox(caller, idOrAddress);
  const [thread, message] = await Promise.all([
    readThread(caller.projectId, inbox.id, threadId),
    getItem(keys.inboxMessage(caller.projectId, inbox.id, threadId, messageId)),
  ]);
  if (!message) throw missingMessage();
  return { inbox, thread, message, answer: (await messageBodies(caller.projectId, thread, [message]))[0] };
}
