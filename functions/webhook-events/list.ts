import { api, listOk } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listWebhookEvents } from '#shared/webhooks/webhooks';

export const handler = api(webhookOps.listEvents, async ({ query, caller }) => {
  const { records, hasMore } = await listWebhookEvents(caller, {
    after: query.after,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
