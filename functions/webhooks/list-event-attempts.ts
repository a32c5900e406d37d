import { api, listOk } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listEventAttempts } from '#shared/webhooks/event-log';

export const handler = api(webhookOps.listEventAttempts, async ({ params, query, caller }) => {
  const { records, hasMore } = await listEventAttempts(caller, params.webhookId, params.eventId, {
    after: query.after,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
