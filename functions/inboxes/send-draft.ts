import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { sendDraft } from '#shared/inboxes/drafts';
import { idempotencyRequest } from '#shared/emails/idempotency';
import { quotaHeaders } from '#shared/project/quota';

export const handler = api(inboxOps.sendDraft, async ({ params, body, caller, headers }) => {
  const idempotency = idempotencyRequest(caller.projectId, headers['idempotency-key'], { draft: params, body });
  const sent = await sendDraft(caller, params.inbox_id, params.draft_id, body?.headers, idempotency);
  return {
    ...ok({ id: sent.ids[0], object: 'email', thread_id: sent.threadId }),
    headers: sent.usage && quotaHeaders(sent.usage),
  };
});
