import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { deleteDraft } from '#shared/inboxes/drafts';

export const handler = api(inboxOps.removeDraft, async ({ params, caller }) =>
  ok({ object: 'inbox_draft', id: await deleteDraft(caller, params.inbox_id, params.draft_id), deleted: true }),
);
