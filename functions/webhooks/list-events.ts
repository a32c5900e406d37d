import { api, listOk } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listEventLog } from '#shared/webhooks/event-log';

export const handler = api(webhookOps.listEventLog, async ({ params, query, caller }) => {
  const { records, hasMore } = await listEventLog(caller, params.webhookId, {
    after: query.after,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
