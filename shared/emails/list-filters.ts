/**
 * GET /emails, with its filters, answered from keys (no Scan, no partition read whole and filtered):
 *
 * - `created_after` / `created_before` are a range of the sort key (ids are UUIDv7, their first 48
 *   bits the millisecond the email was accepted: keys.idTimeBound), on whatever is read. Free.
 * - Without `to`, `from`, `tag` or `status`: the emails themselves (their 16 shards merged, newest
 *   first), as before: a page costs 16 Queries of about limit/10 items each.
 * - With any of them: one filter drives, in this order (the narrowest first, as mail usually
 *   goes): `to`, `from`, `tag`, `status`. Its index entries (keys.emailsBy, ./list-index.ts) are read
 *   in the list's order, in chunks, and each chunk's emails BatchGet; an email is kept when it meets
 *   every filter given (the driver's too: the email as it is now wins over an entry that lags it).
 *   A page costs the entries read (16 Queries per chunk of 25), plus a BatchGet per chunk.
 *   With one filter every entry read is kept (but for an entry behind its email); with two or more
 *   the others may reject entries, so a request reads at most MAX_EXAMINED entries: a page cut short
 *   there has `has_more` and a `cursor` to go on from, which may be past its last item (or there is
 *   none: then `data` is empty and only the cursor says where to go on).
 *
 * The index is written from the table's stream: an email is found by its filters within seconds of
 * a change (its status in particular), not in the same instant.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  bounded,
  collectionReader,
  type Item,
  type KeyRange,
  type PageRequest,
  queryPage,
} from '../platform/db/table';
import { toSummary } from './record';
import type { EmailSummary } from './model';
import { filterValuesOf } from './list-index';
import { bareAddressOf } from '../platform/mail/bare-address';

export interface EmailFilters {
  status?: string;
  from?: string;
  to?: string;
  /** `name:value`, as the index keeps a tag */
  tag?: string;
  /** ISO 8601 times: emails accepted strictly after / before */
  created_after?: string;
  created_before?: string;
}

/** Index entries one request reads at most when filters beside the driving one reject some. */
export const MAX_EXAMINED = 1000;
/** Entries read per round (a Query per shard, then one BatchGet of their emails). */
const CHUNK = 25;

export interface EmailListPage {
  records: EmailSummary[];
  hasMore: boolean;
  /** with hasMore: the id to pass as `after` (or `before`, paging back) for the next page */
  cursor?: string;
}

/** The sort-key range the created_* filters make (undefined: none given; null: nothing can match). */
function createdRange(filters: EmailFilters): KeyRange | undefined | null {
  if (!filters.created_after && !filters.created_before) return undefined;
  const range: KeyRange = {};
  if (filters.created_after) range.from = keys.idTimeBound(Date.parse(filters.created_after) + 1);
  if (filters.created_before) range.to = keys.idTimeBound(Date.parse(filters.created_before));
  return range.from && range.to && range.from >= range.to ? null : range;
}

/**
 * The (filter, value) pairs asked for, as the index keeps them, the one that drives first: `to`,
 * `from`, `tag`, `status` (the narrowest first, as mail usually goes).
 */
function wantedOf(filters: EmailFilters): { kind: keys.EmailFilterKind; value: string }[] {
  return [
    filters.to !== undefined && { kind: 'to' as const, value: bareAddressOf(filters.to) },
    filters.from !== undefined && { kind: 'from' as const, value: bareAddressOf(filters.from) },
    filters.tag !== undefined && { kind: 'tag' as const, value: filters.tag },
    filters.status !== undefined && { kind: 'status' as const, value: filters.status },
  ].filter((w) => w !== false);
}

/** Whether the email (as it is now) has every pair wanted. */
function meets(email: Item, wanted: { kind: keys.EmailFilterKind; value: string }[]): boolean {
  const values = new Set(filterValuesOf(email).map(({ kind, value }) => `${kind}\n${value}`));
  return wanted.every(({ kind, value }) => values.has(`${kind}\n${value}`));
}

/** With more to read: where the next page in the read direction starts (the records are newest first). */
const nextCursor = (records: EmailSummary[], newestFirst: boolean) =>
  newestFirst ? records.at(-1)?.id : records[0]?.id;

const emailIdOf = (sk: string) => sk.slice('EMAIL#'.length);

export async function listEmails(
  caller: Caller,
  page: PageRequest,
  filters: EmailFilters = {},
): Promise<EmailListPage> {
  const range = createdRange(filters);
  if (range === null) return { records: [], hasMore: false };
  const newestFirst = page.before === undefined;
  const wanted = wantedOf(filters);
  const driver = wanted[0];
  if (!driver) {
    const { items, hasMore } = await queryPage(keys.emails(caller.projectId), page, undefined, range);
    const records = items.map(toSummary);
    return { records, hasMore, ...(hasMore ? { cursor: nextCursor(records, newestFirst) } : {}) };
  }
  const entries = collectionReader(keys.emailsBy(caller.projectId, driver.kind, driver.value), page, range, CHUNK);
  const kept: Item[] = [];
  let examined = 0;
  let lastExamined: string | undefined;
  let exhausted = false;
  while (kept.length <= page.limit && examined < MAX_EXAMINED) {
    const chunk = await entries.take(Math.min(CHUNK, MAX_EXAMINED - examined));
    if (chunk.length === 0) {
      exhausted = true;
      break;
    }
    examined += chunk.length;
    const ids = chunk.map((entry) => emailIdOf(String(entry.SK)));
    const emails = new Map(
      (await batchGet(ids.map((id) => keys.email(caller.projectId, id)))).map((e) => [e.id as string, e]),
    );
    for (const id of ids) {
      const email = emails.get(id);
      lastExamined = id;
      if (email && meets(email, wanted)) kept.push(email);
      if (kept.length > page.limit) break;
    }
  }
  const { items, hasMore: pageFull } = bounded(kept, page.limit);
  const records = (newestFirst ? items : items.reverse()).map(toSummary);
  if (pageFull) return { records, hasMore: true, cursor: nextCursor(records, newestFirst) };
  // the entries ran out, or the request read MAX_EXAMINED of them: go on from the last one read
  return exhausted ? { records, hasMore: false } : { records, hasMore: true, cursor: lastExamined };
}
