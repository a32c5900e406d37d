import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { getDraft } from '#shared/inboxes/drafts';

export const handler = api(inboxOps.getDraft, async ({ params, caller }) =>
  ok(await getDraft(caller, params.inbox_id, params.draft_id)),
);
