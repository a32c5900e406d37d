import { api, ok } from '#shared/http/api';
import * as webhookOps from '#shared/operations/webhooks';
import { deleteWebhook } from '#shared/webhooks';

export const handler = api(webhookOps.remove, async ({ params, caller }) => {
  await deleteWebhook(caller, params.webhookId);
  return ok({ object: 'webhook', id: params.webhookId, deleted: true });
});
