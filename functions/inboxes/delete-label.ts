import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { deleteLabel } from '#shared/inboxes/labels';

export const handler = api(inboxOps.removeLabel, async ({ params, caller }) =>
  ok({ object: 'inbox_label', id: await deleteLabel(caller, params.inbox_id, params.label_id), deleted: true }),
);
