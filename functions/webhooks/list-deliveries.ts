import { api, listOk } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listDeliveries } from '#shared/webhooks/webhooks';

export const handler = api(webhookOps.listDeliveries, async ({ params, query, caller }) => {
  const { records, hasMore } = await listDeliveries(caller, params.webhookId, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
