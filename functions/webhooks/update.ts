import { api, ok } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { updateWebhook } from '#shared/webhooks/webhooks';

export const handler = api(webhookOps.update, async ({ params, body, caller }) =>
  ok(await updateWebhook(caller, params.webhookId, body)),
);
