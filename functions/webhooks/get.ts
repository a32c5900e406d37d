import { api, ok } from '#shared/http/api';
import * as webhookOps from '#shared/operations/webhooks';
import { getWebhook } from '#shared/webhooks';

export const handler = api(webhookOps.get, async ({ params, caller }) => ok(await getWebhook(caller, params.webhookId)));
