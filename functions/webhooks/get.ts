import { api, ok } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { getWebhook } from '#shared/webhooks/webhooks';

export const handler = api(webhookOps.get, async ({ params, caller }) =>
  ok(await getWebhook(caller, params.webhookId)),
);
