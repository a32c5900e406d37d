/**
 * Inbox search: a full-text index per inbox (./search-index.ts, MiniSearch) kept as objects in the
 * inbound bucket, no search cluster (an OpenSearch domain's standing monthly minimum).
 *
 * Feed: the outbox's stream consumer (functions/workers/webhook-fanout.ts) forwards every
 * `inbox.message.received` / `inbox.message.sent` event to the `inbox-index` queue; the inbox-index
 * worker adds each batch's messages to the open part of their inbox's index (SEGMENT_MESSAGES below
 * says how the base and the open part share it), writes it as a NEW object
 * (`inboxes/<project>/<inbox>/search-<version>-open-<write id>.json.gz`), then moves the inbox's
 * `index_version`, `index_key` (the open part) and `index_base` to it with a condition on the
 * version it read: two workers on one inbox never lose each other's messages (the loser deletes its
 * own objects, reads the winner's open part and adds again); adding is idempotent. The objects
 * replaced are deleted after the move. The worker and the search route keep what they read in
 * memory between invocations (the open part by version, the base by key), so a warm search reads no
 * object: the inbox item it reads anyway says whether its copy is current.
 *
 * What is found: a message's subject, body (text, else the html's text; the first 64 KB),
 * addresses and file names. Bound: measured for 25,000 messages (about 10,000 threads) in
 * ./search-index.ts and bench/inboxes.ts. Messages past the inbound retention leave the base when
 * the open part is next merged into it, and the objects expire with the bucket's lifecycle (the
 * same retention) when an inbox gets no more mail: an inbox whose objects expired starts anew.
 * Deleted threads stay in the index until their messages expire; search drops them (their thread
 * is read for every answer).
 */
import * as keys from '../platform/db/keys';
import type { Caller } from '../platform/caller';
import {
  batchGet,
  getItem,
  isConditionFailed,
  transact,
  update,
  type Item,
  type PageRequest,
} from '../platform/db/table';
import { deleteObject, getObject, putObject } from '../platform/aws/s3';
import { queue } from '../platform/aws/queues';
import { unprocessable } from '../platform/errors';
import { logger } from '../platform/log';
import { gunzipSync, gzipSync } from 'node:zlib';
import { newId } from '../platform/ids';
import { readInbox } from './inboxes';
import { bodiesOf, DEFAULT_FOLDERS, labelsOf, toThread } from './threads';
import { retentionDays } from '../receiving/received-emails';
import { now as clockNow } from '../platform/clock';
import {
  containsPhrase,
  highlights,
  InboxSearchIndex,
  mergeSerialized,
  newestFirst,
  parseQuery,
  textOfHtml,
  type SearchFilters,
  type SearchHit,
} from './search-index';
import type { Folder } from './model';

/** One message to index (the event's ids). */
export interface IndexMessage {
  project_id: string;
  inbox_id: string;
  thread_id: string;
  message_id: string;
}

export const INBOX_INDEX_EVENT_TYPES = ['inbox.message.received', 'inbox.message.sent'] as const;
export const inboxIndexQueue = /* @__PURE__ */ queue<IndexMessage>('inbox-index', 'return');

/** The index message of an outbox event of those types. */
export const indexMessageOf = (projectId: string, object: Record<string, unknown>): IndexMessage => ({
  project_id: projectId,
  inbox_id: String(object.inbox_id),
  thread_id: String(object.thread_id),
  message_id: String(object.id),
});

/**
 * The index is kept in two objects: the open part (`index_key`) takes new messages and is rewritten
 * at every write; at SEGMENT_MESSAGES it is merged into the base (`index_base`: everything older,
 * rewritten only then) and a new open part starts. The merge works on the serialized form
 * (`mergeSerialized`: no index is built, 0.6 s at 25,000 messages) and leaves out the messages past
 * the inbound retention. So a write costs the open part's serialization (at most SEGMENT_MESSAGES;
 * the whole 25,000-message index took 2.5 s to write and 1.6 s to read, synchronous, for every
 * batch), an instance that has the base reads only the open part after another's write, and a cold
 * one loads two objects (more parts would each carry most of the vocabulary again: 13 of 2,000
 * messages took 11 s to load where the whole index takes 1.6 s). A search asks both parts (a message
 * added again after its part was merged is in both: the open part's hit is kept).
 */
export const SEGMENT_MESSAGES = 2_000;

/** Stored gzipped: a quarter of the JSON. A new object per write (the version and a write id): two workers writing the same version never share a key. */
const objectKey = (projectId: string, inboxId: string, version: number, part: 'open' | 'base') =>
  `inboxes/${projectId}/${inboxId}/search-${version}-${part}-${newId()}.json.gz`;

/**
 * What this instance has read of an inbox's index: the open part at `version`, and the base it has
 * needed (by key: an object is never rewritten). An index of 25,000 messages (about 10,000 threads)
 * takes about 100-130 MB of heap (./search-index.ts), so two inboxes at most, in functions given
 * INDEX_MEMORY_MB (./model.ts).
 */
interface LoadedIndex {
  version: number;
  open: InboxSearchIndex;
  base?: { key: string; index: InboxSearchIndex };
}
const cache = new Map<string, LoadedIndex>();
const MAX_CACHED = 2;

/** An index object's JSON; undefined when it is not in the bucket (expired, or replaced since its key was read). */
async function readJson(key: string): Promise<string | undefined> {
  const stored = await getObject(key);
  return stored ? gunzipSync(stored).toString('utf8') : undefined;
}

/** An index object, loaded; undefined when it is not in the bucket. */
async function readIndex(key: string): Promise<InboxSearchIndex | undefined> {
  const json = await readJson(key);
  if (json === undefined) return undefined;
  try {
    return InboxSearchIndex.fromJSON(json);
  } catch (error) {
    // another format version (SearchIndexVersionError) or a damaged object: its messages are not found until they come again
    logger.error('inbox search index object not readable: taken as empty', { key, error });
    return InboxSearchIndex.create();
  }
}

/**
 * The inbox's index as its item names it (from memory where current): the open part, and with
 * `withBase` (a search) the base too; the index worker writes the open part only.
 */
async function indexOf(inbox: Item, withBase: boolean): Promise<LoadedIndex> {
  const version = Number(inbox.index_version ?? 0);
  const cacheKey = `${inbox.project_id}/${inbox.id}`;
  const baseKey = inbox.index_base as string | undefined;
  let entry = cache.get(cacheKey);
  if (!entry || entry.version !== version) {
    const base = entry?.base?.key === baseKey ? entry?.base : undefined;
    let open = InboxSearchIndex.create();
    if (version > 0 && inbox.index_key) {
      const read = await readIndex(inbox.index_key);
      // replaced and deleted since the item was read (a newer version exists: not kept), or expired with its mail
      if (!read) {
        logger.warn('inbox search index object missing: taken as empty', { inbox_id: inbox.id, version });
        return { version, open, base };
      }
      open = read;
    }
    entry = { version, open, base };
    cache.delete(cacheKey);
    cache.set(cacheKey, entry);
    while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  }
  if (withBase && baseKey && entry.base?.key !== baseKey) {
    const index = await readIndex(baseKey);
    // missing: expired with its mail, or replaced by a merge since the item was read (not kept: read again next time)
    if (!index) return { ...entry, base: { key: baseKey, index: InboxSearchIndex.create() } };
    entry.base = { key: baseKey, index };
  }
  return entry;
}

const indexed = (item: Item, body: { text: string | null; html: string | null } | undefined) => ({
  id: item.id,
  thread_id: item.thread_id,
  subject: item.subject ?? '',
  from: item.from ?? '',
  to: item.to ?? [],
  cc: item.cc ?? [],
  bcc: item.bcc ?? [],
  text: body?.text ?? (body?.html ? textOfHtml(body.html) : ''),
  received_at: item.received_at,
  has_attachment: (item.attachments ?? []).length > 0 || Number(item.attachment_count ?? 0) > 0,
  attachment_names: ((item.attachments ?? []) as Item[]).map((a) => a.filename).filter(Boolean),
});

/**
 * Adds the messages to their inboxes' indexes (per inbox: its open part written, the base when the open part was
 * merged into it, and one conditional move). `segmentMessages`: where the open part is merged (tests merge small ones).
 */
export async function indexMessages(
  messages: IndexMessage[],
  { segmentMessages = SEGMENT_MESSAGES }: { segmentMessages?: number } = {},
): Promise<void> {
  const byInbox = new Map<string, IndexMessage[]>();
  for (const m of messages)
    byInbox.set(`${m.project_id}/${m.inbox_id}`, [...(byInbox.get(`${m.project_id}/${m.inbox_id}`) ?? []), m]);
  for (const group of byInbox.values()) {
    const { project_id: projectId, inbox_id: inboxId } = group[0];
    const items = await batchGet(group.map((m) => keys.inboxMessage(projectId, inboxId, m.thread_id, m.message_id)));
    if (!items.length) continue; // gone with their thread or inbox
    const threads = new Map(
      (
        await batchGet(
          [...new Set(items.map((i) => i.thread_id as string))].map((t) => keys.inboxThread(projectId, inboxId, t)),
        )
      ).map((t) => [t.id as string, t]),
    );
    const bodies = new Map(
      (
        await bodiesOf(
          projectId,
          items.flatMap((m) => (threads.has(m.thread_id) ? [[threads.get(m.thread_id)!, m] as const] : [])),
        )
      ).map((body) => [body.id, body]),
    );
    for (let attempt = 1; ; attempt++) {
      const inbox = await getItem(keys.inbox(projectId, inboxId));
      if (!inbox) break; // deleted: its index goes with it
      const loaded = await indexOf(inbox, false);
      const { version } = loaded;
      const next = version + 1;
      // the open part takes the messages; at SEGMENT_MESSAGES it is merged into the base (then a new one opens)
      const writes: { key: string; body: () => string }[] = [];
      let baseKey = inbox.index_base as string | undefined;
      let baseJson: string | undefined;
      let open = loaded.open;
      for (const item of items) {
        if (open.messageCount >= segmentMessages && !open.has(item.id)) {
          baseJson ??= (baseKey && (await readJson(baseKey))) || InboxSearchIndex.create().toJSON(); // expired: a new one
          const keepFrom = new Date(clockNow() - retentionDays() * 86_400_000).toISOString();
          baseJson = mergeSerialized(baseJson, open.toJSON(), keepFrom);
          open = InboxSearchIndex.create();
          baseKey = objectKey(projectId, inboxId, next, 'base');
        }
        open.add(indexed(item, bodies.get(item.id)));
      }
      const key = objectKey(projectId, inboxId, next, 'open');
      const merged = baseJson;
      if (merged !== undefined) writes.push({ key: baseKey!, body: () => merged });
      writes.push({ key, body: () => open.toJSON() });
      try {
        for (const write of writes) await putObject(write.key, gzipSync(write.body()), 'application/gzip');
        await transact([
          update(
            keys.inbox(projectId, inboxId),
            {
              set: { index_version: next, index_key: key, ...(baseKey ? { index_base: baseKey } : {}) },
              condition: {
                expression: 'attribute_exists(PK) AND (#v = :v OR (attribute_not_exists(#v) AND :v = :zero))',
                names: { '#v': 'index_version' },
                values: { ':v': version, ':zero': 0 },
              },
            },
            { tag: 'index moved' },
          ),
        ]);
      } catch (error) {
        loaded.version = -1; // our copy of the open part has our additions on a version that lost: read it again
        for (const write of writes) await deleteObject(write.key); // ours alone: the winner's have their own keys
        if (!isConditionFailed(error, 'index moved') || attempt >= 5) throw error;
        continue;
      }
      // the worker keeps the open part only (a search reads the base)
      loaded.version = next;
      loaded.open = open;
      if (inbox.index_key) await deleteObject(inbox.index_key); // the open part before (merged, or replaced)
      if (inbox.index_base && inbox.index_base !== baseKey) await deleteObject(inbox.index_base); // merged into the new base
      break;
    }
  }
}

/** Both parts' hits, newest first; a message in both (added again after its part was merged) once, the open part's. */
function searchParts(parts: InboxSearchIndex[], filters: SearchFilters): SearchHit[] {
  if (parts.length === 1) return parts[0].search(filters);
  const seen = new Set<string>();
  const hits: SearchHit[] = [];
  for (const part of parts)
    for (const hit of part.search(filters)) if (!seen.has(hit.message_id)) seen.add(hit.message_id), hits.push(hit);
  return hits.sort(newestFirst);
}

export interface SearchQuery extends SearchFilters {
  folders?: Folder[];
  labels?: string[];
  read?: boolean;
}

/** GET .../threads/search: matching threads, newest match first, each with its newest matching message and highlights. */
export async function searchThreads(caller: Caller, idOrAddress: string, query: SearchQuery, page: PageRequest) {
  const inbox = await readInbox(caller, idOrAddress);
  const labelsRead = labelsOf(caller.projectId, inbox.id); // beside the index
  labelsRead.catch(() => undefined); // awaited below; not unhandled when the index read throws first
  const { open, base } = await indexOf(inbox, true);
  const parsed = parseQuery(query.query ?? '');
  // an excluded phrase is checked here, on the text (the index would drop every message with all its words)
  const indexQuery = (query.query ?? '').replace(/-"[^"]*"?/g, ' ');
  let hits: ReturnType<InboxSearchIndex['search']>;
  try {
    hits = searchParts(base ? [open, base.index] : [open], { ...query, query: indexQuery });
  } catch (error) {
    if (!(error instanceof RangeError)) throw error;
    throw unprocessable([
      { code: 'invalid_date', message: 'start_date and end_date must be real dates', path: 'start_date' },
    ]);
  }
  const folders = query.folders?.length ? query.folders : DEFAULT_FOLDERS;
  // newest match per thread, in the hits' order (newest first)
  const byThread = new Map<string, (typeof hits)[number]>();
  // phrases are checked on the subject and body of each thread's newest matching message
  const needsPhrase = parsed.phrases.length > 0 || parsed.excludedPhrases.length > 0;
  const ordered: string[] = [];
  for (const hit of hits)
    if (!byThread.has(hit.thread_id)) byThread.set(hit.thread_id, hit), ordered.push(hit.thread_id);
  let start = 0;
  const cursor = page.after ?? page.before;
  if (cursor) {
    const at = ordered.indexOf(cursor);
    if (at < 0)
      throw unprocessable([
        {
          code: 'invalid_cursor',
          message: 'must be the id of a thread of these results',
          path: page.after ? 'after' : 'before',
        },
      ]);
    start = page.after ? at + 1 : Math.max(0, at - page.limit);
  }
  const labels = await labelsRead;
  const found: { thread: Item; hit: (typeof hits)[number]; highlights: string[] }[] = [];
  let position = start;
  const end = page.before ? ordered.indexOf(page.before) : ordered.length;
  // read the candidate threads (and their matched messages' bodies) a chunk at a time until the page is full
  while (found.length <= page.limit && position < end) {
    const chunk = ordered.slice(position, Math.min(end, position + Math.max(page.limit * 2, 20)));
    position += chunk.length;
    const threads = new Map(
      (await batchGet(chunk.map((id) => keys.inboxThread(caller.projectId, inbox.id, id)))).map((t) => [
        t.id as string,
        t,
      ]),
    );
    const candidates = chunk.flatMap((id) => {
      const thread = threads.get(id);
      if (!thread || !folders.includes(thread.folder)) return [];
      if (query.read !== undefined && (thread.read === true) !== query.read) return [];
      if (query.labels?.length && !query.labels.some((l) => (thread.labels ?? []).includes(l))) return [];
      return [{ thread, hit: byThread.get(id)! }];
    });
    // without phrases every candidate is an answer: the bodies of those the page shows (and one to know there is more)
    const wanted = needsPhrase ? candidates : candidates.slice(0, page.limit + 1 - found.length);
    const messages = new Map(
      (
        await batchGet(wanted.map((c) => keys.inboxMessage(caller.projectId, inbox.id, c.thread.id, c.hit.message_id)))
      ).map((m) => [m.id as string, m]),
    );
    const present = wanted.filter((c) => messages.has(c.hit.message_id));
    const bodies = await bodiesOf(
      caller.projectId,
      present.map((c) => [c.thread, messages.get(c.hit.message_id)!] as const),
    );
    for (const [i, candidate] of present.entries()) {
      const body = bodies[i];
      const text = `${body.subject ?? ''}\n${body.text ?? (body.html ? textOfHtml(body.html) : '')}`;
      if (needsPhrase) {
        if (!parsed.phrases.every((p) => containsPhrase(text, p))) continue;
        if (parsed.excludedPhrases.some((p) => containsPhrase(text, p))) continue;
      }
      found.push({ ...candidate, highlights: highlights(text, candidate.hit.terms, parsed.phrases) });
      if (found.length > page.limit) break;
    }
  }
  const hasMore = found.length > page.limit || position < end;
  return {
    records: found.slice(0, page.limit).map(({ thread, hit, highlights }) => ({
      ...toThread(thread, labels),
      matched_email_id: hit.message_id,
      highlights,
    })),
    hasMore,
  };
}
