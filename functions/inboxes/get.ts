import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { readInbox, toInbox } from '#shared/inboxes/inboxes';

export const handler = api(inboxOps.get, async ({ params, caller }) =>
  ok(toInbox(await readInbox(caller, params.inbox_id))),
);
