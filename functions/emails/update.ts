import { rescheduleEmail } from '#shared/emails/emails';
import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';

export const handler = api(emailOps.update, async ({ params, body, caller }) => {
  await rescheduleEmail(caller, params.email_id, body.scheduled_at);
  return ok({ object: 'email', id: params.email_id });
});
