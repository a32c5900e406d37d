import { api, listOk } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { searchThreads } from '#shared/inboxes/search';
import type { Folder } from '#shared/inboxes/model';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

const list = (value: string | undefined) => value?.split(',');
const flag = (value: string | undefined) => (value === undefined ? undefined : value === 'true');

export const handler = api(inboxOps.searchThreads, async ({ params, query, caller }) => {
  const { records, hasMore } = await searchThreads(
    caller,
    params.inbox_id,
    {
      query: query.query,
      from: list(query.from),
      to: list(query.to),
      cc: list(query.cc),
      bcc: list(query.bcc),
      has_attachment: flag(query.has_attachment),
      start_date: query.start_date,
      end_date: query.end_date,
      folders: list(query.folders) as Folder[] | undefined,
      labels: list(query.labels),
      read: flag(query.read),
    },
    { limit: query.limit ?? DEFAULT_PAGE_SIZE, after: query.after, before: query.before },
  );
  return listOk(records, hasMore);
});
