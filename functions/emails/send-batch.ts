import { acceptEmails } from '#shared/emails/emails';
import { api, ok } from '#shared/access/api';
import { idempotencyRequest } from '#shared/emails/idempotency';
import * as emailOps from '#shared/emails/operations';
import { quotaHeaders } from '#shared/emails/quota';

export const handler = api(emailOps.sendBatch, async ({ body, caller, headers }) => {
  const idempotency = idempotencyRequest(caller.projectId, headers['idempotency-key'], body);
  const { ids, usage } = await acceptEmails(caller, body, { batch: true, idempotency });
  return { ...ok({ data: ids.map((id) => ({ id })) }), headers: usage && quotaHeaders(usage) };
});
