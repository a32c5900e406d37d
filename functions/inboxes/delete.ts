import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { deleteInbox } from '#shared/inboxes/inboxes';

export const handler = api(inboxOps.remove, async ({ params, caller }) =>
  ok({ object: 'inbox', id: await deleteInbox(caller, params.inbox_id), deleted: true }),
);
