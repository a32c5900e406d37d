import { api, ok } from '#shared/http/api';
import * as webhookOps from '#shared/operations/webhooks';
import { updateWebhook } from '#shared/webhooks';

export const handler = api(webhookOps.update, async ({ params, body, caller }) => ok(await updateWebhook(caller, params.webhookId, body)));
