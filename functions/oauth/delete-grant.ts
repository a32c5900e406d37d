import { api, ok } from '#shared/access/api';
import { revokeGrant } from '#shared/access/oauth-grants';
import * as oauthOps from '#shared/access/operations/oauth';

export const handler = api(oauthOps.deleteGrant, async ({ params, caller }) => {
  await revokeGrant(caller, params.grant_id);
  return ok({ object: 'oauth_grant', id: params.grant_id, deleted: true });
});
