import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { deleteThread } from '#shared/inboxes/threads';

export const handler = api(inboxOps.removeThread, async ({ params, caller }) => {
  await deleteThread(caller, params.inbox_id, params.thread_id);
  return ok({ object: 'inbox_thread', id: params.thread_id, deleted: true });
});
