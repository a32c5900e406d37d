import { api, listOk } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';
import { listRecipients } from '#shared/broadcasts/recipients';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(broadcastOps.listRecipients, async ({ params, query, caller }) => {
  const { items, hasMore } = await listRecipients(caller, params.broadcast_id, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(items, hasMore);
});
