import { cancelEmail } from '#shared/emails';
import { api, ok } from '#shared/http/api';
import * as emailOps from '#shared/operations/emails';

export const handler = api(emailOps.cancel, async ({ params, caller }) => {
  await cancelEmail(caller, params.email_id);
  return ok({ object: 'email', id: params.email_id });
});
