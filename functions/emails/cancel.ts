import { cancelEmail } from '#shared/emails/emails';
import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';

export const handler = api(emailOps.cancel, async ({ params, caller }) => {
  await cancelEmail(caller, params.email_id);
  return ok({ object: 'email', id: params.email_id });
});
