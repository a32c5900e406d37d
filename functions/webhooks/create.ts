import { api, created } from '#shared/http/api';
import * as webhookOps from '#shared/operations/webhooks';
import { createWebhook } from '#shared/webhooks';

export const handler = api(webhookOps.create, async ({ body, caller }) => created(await createWebhook(caller, body)));
