import { api, ok } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { getDelivery } from '#shared/webhooks/webhooks';

export const handler = api(webhookOps.getDelivery, async ({ params, caller }) =>
  ok(await getDelivery(caller, params.webhookId, params.deliveryId)),
);
