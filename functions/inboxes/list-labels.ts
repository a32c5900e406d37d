import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { listLabels } from '#shared/inboxes/labels';

export const handler = api(inboxOps.listLabels, async ({ params, caller }) =>
  ok({ object: 'list', data: await listLabels(caller, params.inbox_id) }),
);
