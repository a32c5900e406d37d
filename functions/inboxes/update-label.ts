import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { updateLabel } from '#shared/inboxes/labels';

export const handler = api(inboxOps.updateLabel, async ({ params, body, caller }) =>
  ok({ object: 'inbox_label', id: await updateLabel(caller, params.inbox_id, params.label_id, body) }),
);
