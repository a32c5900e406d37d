import { accepted, api } from '#shared/access/api';
import * as webhookOps from '#shared/webhooks/operations';
import { replayEvent } from '#shared/webhooks/retry';

export const handler = api(webhookOps.replayEvent, async ({ params, caller }) =>
  accepted(await replayEvent(caller, params.webhookId, params.eventId)),
);
