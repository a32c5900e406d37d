import { acceptEmails } from '#shared/emails/emails';
import { api, ok } from '#shared/access/api';
import { idempotencyRequest } from '#shared/emails/idempotency';
import * as emailOps from '#shared/emails/operations';
import { quotaHeaders } from '#shared/project/quota';

export const handler = api(emailOps.send, async ({ body, caller, headers }) => {
  const idempotency = idempotencyRequest(caller.projectId, headers['idempotency-key'], body);
  const { ids, usage } = await acceptEmails(caller, [body], { batch: false, idempotency });
  return { ...ok({ id: ids[0] }), headers: usage && quotaHeaders(usage) };
});
