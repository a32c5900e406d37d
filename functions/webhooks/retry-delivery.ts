import { accepted, api } from '#shared/http/api';
import * as webhookOps from '#shared/operations/webhooks';
import { retryDelivery } from '#shared/webhook-retry';

export const handler = api(webhookOps.retryDelivery, async ({ params, caller }) => accepted(await retryDelivery(caller, params.webhookId, params.deliveryId)));
