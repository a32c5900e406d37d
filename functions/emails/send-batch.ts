import { acceptEmails } from '#shared/emails/emails';
import { api, ok } from '#shared/access/api';
import { idempotencyRequest } from '#shared/emails/idempotency';
import * as emailOps from '#shared/emails/operations';
import { quotaHeaders } from '#shared/project/quota';

export const handler = api(emailOps.sendBatch, async ({ body, caller, headers, rejected, indices }) => {
  const permissive = rejected && indices ? { rejected, indices } : undefined; // x-batch-validation: permissive
  const idempotency = idempotencyRequest(
    caller.projectId,
    headers['idempotency-key'],
    permissive ? { body, permissive: true } : body,
  ); // the mode is part of the request
  const accepted = await acceptEmails(caller, body, { batch: true, idempotency, permissive });
  const data = accepted.ids.map((id) => ({ id }));
  return {
    ...ok(permissive ? { data, errors: accepted.rejected ?? [] } : { data }),
    headers: accepted.usage && quotaHeaders(accepted.usage),
  };
});
