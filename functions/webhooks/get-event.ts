import { api, ok } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { getEventLogEntry } from '#shared/webhooks/event-log';

export const handler = api(webhookOps.getEventLogEntry, async ({ params, caller }) =>
  ok(await getEventLogEntry(caller, params.webhookId, params.eventId)),
);
