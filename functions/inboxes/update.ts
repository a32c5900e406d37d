import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { updateInbox } from '#shared/inboxes/inboxes';

export const handler = api(inboxOps.update, async ({ params, body, caller }) =>
  ok(await updateInbox(caller, params.inbox_id, body)),
);
