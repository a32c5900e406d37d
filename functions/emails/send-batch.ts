import { acceptEmails } from '#shared/emails';
import { api, ok } from '#shared/http/api';
import { idempotencyRequest } from '#shared/idempotency';
import * as emailOps from '#shared/operations/emails';

export const handler = api(emailOps.sendBatch, async ({ body, caller, headers }) => {
  const idempotency = idempotencyRequest(caller.projectId, headers['idempotency-key'], body);
  const ids = await acceptEmails(caller, body, { batch: true, idempotency });
  return ok({ data: ids.map((id) => ({ id })) });
});
