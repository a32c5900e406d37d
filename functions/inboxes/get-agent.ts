import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { readInbox, toAgent } from '#shared/inboxes/inboxes';

export const handler = api(inboxOps.getAgent, async ({ params, caller }) =>
  ok(toAgent(await readInbox(caller, params.inbox_id))),
);
