import { api, ok } from '#shared/access/api';
import * as inboxOps from '#shared/inboxes/operations';
import { replyTo } from '#shared/inboxes/outbound';
import { idempotencyRequest } from '#shared/emails/idempotency';
import { quotaHeaders } from '#shared/project/quota';

export const handler = api(inboxOps.reply, async ({ params, body, caller, headers }) => {
  const idempotency = idempotencyRequest(caller.projectId, headers['idempotency-key'], { reply: params, body });
  const sent = await replyTo(caller, params.inbox_id, params.thread_id, params.email_id, body, idempotency);
  return {
    ...ok({ id: sent.ids[0], object: 'email', thread_id: sent.threadId }),
    headers: sent.usage && quotaHeaders(sent.usage),
  };
});
