import { api, ok } from '#shared/http/api';
import * as webhookOps from '#shared/operations/webhooks';
import { getDelivery } from '#shared/webhooks';

export const handler = api(webhookOps.getDelivery, async ({ params, caller }) => ok(await getDelivery(caller, params.webhookId, params.deliveryId)));
