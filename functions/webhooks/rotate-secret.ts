import { api, ok } from '#shared/http/api';
import * as webhookOps from '#shared/operations/webhooks';
import { rotateSecret } from '#shared/webhooks';

export const handler = api(webhookOps.rotateSecret, async ({ params, caller }) => ok(await rotateSecret(caller, params.webhookId)));
