import { api, listOk } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { listInboxes } from '#shared/inboxes/inboxes';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(inboxOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listInboxes(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
