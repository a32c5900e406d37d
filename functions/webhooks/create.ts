import { api, created } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { createWebhook } from '#shared/webhooks/webhooks';

export const handler = api(webhookOps.create, async ({ body, caller }) => created(await createWebhook(caller, body)));
