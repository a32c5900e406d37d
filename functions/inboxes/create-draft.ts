import { api, created, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { createDraft } from '#shared/inboxes/drafts';

export const handler = api(inboxOps.createDraft, async ({ params, body, caller }) => {
  const { draft, created: isNew } = await createDraft(caller, params.inbox_id, body);
  return isNew ? created(draft) : ok(draft);
});
