import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { changeThreadLabels } from '#shared/inboxes/threads';

export const handler = api(inboxOps.removeThreadLabel, async ({ params, caller }) =>
  ok(await changeThreadLabels(caller, params.inbox_id, params.thread_id, { remove: params.label_id })),
);
