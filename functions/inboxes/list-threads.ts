import { api, listOk } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { listThreads } from '#shared/inboxes/threads';
import type { Folder } from '#shared/inboxes/model';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(inboxOps.listThreads, async ({ params, query, caller }) => {
  const { records, hasMore } = await listThreads(
    caller,
    params.inbox_id,
    {
      folders: query.folders?.split(',') as Folder[] | undefined,
      labels: query.labels?.split(','),
      read: query.read === undefined ? undefined : query.read === 'true',
    },
    { limit: query.limit ?? DEFAULT_PAGE_SIZE, after: query.after, before: query.before },
  );
  return listOk(records, hasMore);
});
