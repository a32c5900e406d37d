import { api, listOk } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { listThreadMessages } from '#shared/inboxes/threads';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(inboxOps.listMessages, async ({ params, query, caller }) => {
  const { records, hasMore } = await listThreadMessages(caller, params.inbox_id, params.thread_id, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
