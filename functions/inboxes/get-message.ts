import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { getThreadMessage } from '#shared/inboxes/threads';

export const handler = api(inboxOps.getMessage, async ({ params, caller }) =>
  ok((await getThreadMessage(caller, params.inbox_id, params.thread_id, params.email_id)).answer),
);
