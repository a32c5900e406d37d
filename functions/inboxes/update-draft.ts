import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { getDraft, updateDraft } from '#shared/inboxes/drafts';

export const handler = api(inboxOps.updateDraft, async ({ params, body, caller }) => {
  await updateDraft(caller, params.inbox_id, params.draft_id, body);
  return ok(await getDraft(caller, params.inbox_id, params.draft_id));
});
