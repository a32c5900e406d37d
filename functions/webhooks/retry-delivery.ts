import { accepted, api } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { retryDelivery } from '#shared/webhooks/retry';

export const handler = api(webhookOps.retryDelivery, async ({ params, caller }) =>
  accepted(await retryDelivery(caller, params.webhookId, params.deliveryId)),
);
