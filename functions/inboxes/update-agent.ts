import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { readInbox, updateAgent } from '#shared/inboxes/inboxes';

export const handler = api(inboxOps.updateAgent, async ({ params, body, caller }) => {
  const agent = await updateAgent(caller, params.inbox_id, body);
  const inbox = await readInbox(caller, params.inbox_id);
  return ok({ ...agent, id: inbox.id });
});
