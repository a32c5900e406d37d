import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { updateAgent } from '#shared/inboxes/inboxes';

export const handler = api(inboxOps.updateAgent, async ({ params, body, caller }) =>
  ok(await updateAgent(caller, params.inbox_id, body)),
);
