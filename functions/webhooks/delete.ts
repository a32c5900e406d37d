import { api, ok } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { deleteWebhook } from '#shared/webhooks/webhooks';

export const handler = api(webhookOps.remove, async ({ params, caller }) => {
  await deleteWebhook(caller, params.webhookId);
  return ok({ object: 'webhook', id: params.webhookId, deleted: true });
});
