import { listBroadcasts } from '#shared/broadcasts/broadcasts';
import { api, listOk } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(broadcastOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listBroadcasts(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
