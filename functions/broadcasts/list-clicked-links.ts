import { api, listOk } from '#shared/access/api';
import { listClickedLinks } from '#shared/broadcasts/clicked-links';
import * as broadcastOps from '#shared/broadcasts/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(broadcastOps.listClickedLinks, async ({ params, query, caller }) => {
  const { records, hasMore } = await listClickedLinks(caller, params.broadcast_id, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
