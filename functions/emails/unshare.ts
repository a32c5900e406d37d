import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';
import { revokeShares } from '#shared/emails/share';

export const handler = api(emailOps.unshare, async ({ params, caller }) => {
  await revokeShares(caller, params.email_id);
  return ok({ object: 'email', id: params.email_id, revoked: true });
});
