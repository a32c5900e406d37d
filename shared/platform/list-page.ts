import { unprocessable } from './errors';
import type { Page, PageRequest } from './db/table';

/**
 * One page of a short list held whole (an email's attachments), in its own order: `after` /
 * `before` name an element's id (422 `invalid_cursor` when it is not one of the list's).
 */
export function pageInOrder<T extends { id: string }>(
  all: T[],
  page: PageRequest,
  what: string,
): { slice: T[]; hasMore: boolean } {
  let start = 0;
  let end = all.length;
  const cursor = page.after ?? page.before;
  if (cursor) {
    const at = all.findIndex((element) => element.id === cursor);
    if (at < 0)
      throw unprocessable([{ code: 'invalid_cursor', message: `not ${what}`, path: page.after ? 'after' : 'before' }]);
    if (page.after) start = at + 1;
    else end = at;
  }
  const slice = page.before ? all.slice(Math.max(start, end - page.limit), end) : all.slice(start, start + page.limit);
  const hasMore = page.before ? end - slice.length > 0 : start + slice.length < end;
  return { slice, hasMore };
}

/**
 * A page of a short list held in memory, newest (greatest id) first, with the cursors of queryPage:
 * a cursor is a position among UUIDv7 ids (any id works, also one of another project's), not a lookup.
 */
export function pageOf<T extends { id: string }>(records: T[], page: PageRequest): Page<T> {
  const newestFirst = [...records].sort((a, b) => b.id.localeCompare(a.id));
  if (page.before) {
    const newer = newestFirst.filter((r) => r.id > page.before!);
    return { items: newer.slice(Math.max(0, newer.length - page.limit)), hasMore: newer.length > page.limit };
  }
  const older = page.after ? newestFirst.filter((r) => r.id < page.after!) : newestFirst;
  return { items: older.slice(0, page.limit), hasMore: older.length > page.limit };
}
