import { api, listOk } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { listDrafts } from '#shared/inboxes/drafts';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(inboxOps.listDrafts, async ({ params, query, caller }) => {
  const { records, hasMore } = await listDrafts(caller, params.inbox_id, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
