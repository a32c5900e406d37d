import { acceptEmails } from '#shared/emails';
import { api, ok } from '#shared/http/api';
import { idempotencyRequest } from '#shared/idempotency';
import * as emailOps from '#shared/operations/emails';

export const handler = api(emailOps.send, async ({ body, caller, headers }) => {
  const idempotency = idempotencyRequest(caller.projectId, headers['idempotency-key'], body);
  const [id] = await acceptEmails(caller, [body], { batch: false, idempotency });
  return ok({ id });
});
