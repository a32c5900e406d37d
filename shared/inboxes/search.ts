/**
 * Inbox search: a full-text index per inbox (./search-index.ts, MiniSearch) kept as one object in
 * the inbound bucket, no search cluster (an OpenSearch domain's standing monthly minimum).
 *
 * Feed: the outbox's stream consumer (functions/workers/webhook-fanout.ts) forwards every
 * `inbox.message.received` / `inbox.message.sent` event to the `inbox-index` queue; the inbox-index
 * worker adds each batch's messages to their inbox's index and writes it as a NEW object
 * (`inboxes/<project>/<inbox>/search-<version>-<write id>.json.gz`), then moves the inbox's
 * `index_version` and `index_key` to it with a condition on the version it read: two workers on one
 * inbox never lose each other's messages (the loser deletes its own object, reads the winner's index
 * and adds again); adding is idempotent. The old
 * object is deleted after the move. The worker and the search route keep the newest index they
 * read in memory between invocations (keyed by inbox and version), so a warm search reads no
 * object: the inbox item it reads anyway says whether its copy is current.
 *
 * What is found: a message's subject, body (text, else the html's text; the first 64 KB),
 * addresses and file names. Bound: measured for 25,000 messages (about 10,000 threads) in
 * ./search-index.ts; the index object lives as long as mail does (the bucket's lifecycle, the same
 * retention as the messages it indexes): an inbox whose object expired starts a new one.
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
import { DEFAULT_FOLDERS, labelsOf, messageBodies, toThread } from './threads';
import {
  containsPhrase,
  highlights,
  InboxSearchIndex,
  parseQuery,
  textOfHtml,
  type SearchFilters,
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
export const inboxIndexQueue = queue<IndexMessage>('inbox-index', 'return');

/** The index message of an outbox event of those types. */
export const indexMessageOf = (projectId: string, object: Record<string, unknown>): IndexMessage => ({
  project_id: projectId,
  inbox_id: String(object.inbox_id),
  thread_id: String(object.thread_id),
  message_id: String(object.id),
});

/** Stored gzipped: a quarter of the JSON (3 MB for 25,000 messages), read and written four times faster. */
/** A new object per write (the version and a write id): two workers writing the same version never share a key. */
const objectKey = (projectId: string, inboxId: string, version: number) =>
  `inboxes/${projectId}/${inboxId}/search-${version}-${newId()}.json.gz`;

/**
 * The newest index read per inbox, in this instance's memory: an index of 25,000 messages (about
 * 10,000 threads) takes about 130 MB of heap (./search-index.ts), so two at most, in functions
 * given INDEX_MEMORY_MB (./model.ts).
 */
const cache = new Map<string, { version: number; index: InboxSearchIndex }>();
const MAX_CACHED = 2;

/** The inbox's index at the version its item names (from memory when current). */
async function indexOf(inbox: Item): Promise<{ version: number; index: InboxSearchIndex }> {
  const version = Number(inbox.index_version ?? 0);
  const cacheKey = `${inbox.project_id}/${inbox.id}`;
  const cached = cache.get(cacheKey);
  if (cached && cached.version === version) return cached;
  let index = InboxSearchIndex.create();
  if (version > 0 && inbox.index_key) {
    const stored = await getObject(inbox.index_key);
    if (!stored) logger.warn('inbox search index object missing: starting a new one', { inbox_id: inbox.id, version });
    else
      try {
        index = InboxSearchIndex.fromJSON(gunzipSync(stored).toString('utf8'));
      } catch (error) {
        // another format version (SearchIndexVersionError) or a damaged object: the next messages start a new one
        logger.error('inbox search index not readable: starting a new one', { inbox_id: inbox.id, version, error });
      }
  }
  const entry = { version, index };
  cache.delete(cacheKey);
  cache.set(cacheKey, entry);
  while (cache.size > MAX_CACHED) cache.delete(cache.keys().next().value!);
  return entry;
}

/** Adds the messages to their inboxes' indexes (one new object and one conditional move per inbox). */
export async function indexMessages(messages: IndexMessage[]): Promise<void> {
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
    const bodies = new Map<string, { text: string | null; html: string | null }>();
    for (const [threadId, thread] of threads) {
      const inThread = items.filter((i) => i.thread_id === threadId);
      for (const body of await messageBodies(projectId, thread, inThread)) bodies.set(body.id, body);
    }
    for (let attempt = 1; ; attempt++) {
      const inbox = await getItem(keys.inbox(projectId, inboxId));
      if (!inbox) break; // deleted: its index goes with it
      const { version, index } = await indexOf(inbox);
      for (const item of items) {
        const body = bodies.get(item.id);
        index.add({
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
      }
      const next = version + 1;
      const key = objectKey(projectId, inboxId, next);
      await putObject(key, gzipSync(index.toJSON()), 'application/gzip');
      try {
        await transact([
          update(
            keys.inbox(projectId, inboxId),
            {
              set: { index_version: next, index_key: key },
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
        cache.delete(`${projectId}/${inboxId}`); // our copy has our additions on a version that lost
        await deleteObject(key); // ours alone: the winner's object has its own key
        if (!isConditionFailed(error, 'index moved') || attempt >= 5) throw error;
        continue;
      }
      cache.set(`${projectId}/${inboxId}`, { version: next, index });
      if (inbox.index_key) await deleteObject(inbox.index_key);
      break;
    }
  }
}

export interface SearchQuery extends SearchFilters {
  folders?: Folder[];
  labels?: string[];
  read?: boolean;
}

/** GET .../threads/search: matching threads, newest match first, each with its newest matching message and highlights. */
export async function searchThreads(caller: Caller, idOrAddress: string, query: SearchQuery, page: PageRequest) {
  const inbox = await readInbox(caller, idOrAddress);
  const { index } = await indexOf(inbox);
  const parsed = parseQuery(query.query ?? '');
  // an excluded phrase is checked here, on the text (the index would drop every message with all its words)
  const indexQuery = (query.query ?? '').replace(/-"[^"]*"?/g, ' ');
  let hits: ReturnType<InboxSearchIndex['search']>;
  try {
    hits = index.search({ ...query, query: indexQuery });
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
  const labels = await labelsOf(caller.projectId, inbox.id);
  const found: { thread: Item; hit: (typeof hits)[number]; highlights: string[] }[] = [];
  let position = start;
  const end = page.before ? ordered.indexOf(page.before) : ordered.length;
  // read the candidate threads (and, for phrases, the messages' bodies) a few at a time until the page is full
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
    const messages = await batchGet(
      candidates.map((c) => keys.inboxMessage(caller.projectId, inbox.id, c.thread.id, c.hit.message_id)),
    );
    const byId = new Map(messages.map((m) => [m.id as string, m]));
    for (const candidate of candidates) {
      const message = byId.get(candidate.hit.message_id);
      if (!message) continue;
      const [body] = await messageBodies(caller.projectId, candidate.thread, [message]);
      const text = `${message.subject ?? ''}\n${body.text ?? (body.html ? textOfHtml(body.html) : '')}`;
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
