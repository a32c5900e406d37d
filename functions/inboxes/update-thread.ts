import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { updateThread } from '#shared/inboxes/threads';

export const handler = api(inboxOps.updateThread, async ({ params, body, caller }) =>
  ok(await updateThread(caller, params.inbox_id, params.thread_id, body)),
);
