import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { getThread } from '#shared/inboxes/threads';

export const handler = api(inboxOps.getThread, async ({ params, caller }) =>
  ok(await getThread(caller, params.inbox_id, params.thread_id)),
);
