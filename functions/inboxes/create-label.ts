import { api, created } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { createLabel } from '#shared/inboxes/labels';

export const handler = api(inboxOps.createLabel, async ({ params, body, caller }) =>
  created({ object: 'inbox_label', ...(await createLabel(caller, params.inbox_id, body)) }),
);
