import { api, ok } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { rotateSecret } from '#shared/webhooks/webhooks';

export const handler = api(webhookOps.rotateSecret, async ({ params, caller }) =>
  ok(await rotateSecret(caller, params.webhookId)),
);
