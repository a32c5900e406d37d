import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { updateDraft } from '#shared/inboxes/drafts';

export const handler = api(inboxOps.updateDraft, async ({ params, body, caller }) =>
  ok(await updateDraft(caller, params.inbox_id, params.draft_id, body)),
);
