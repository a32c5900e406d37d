import { api, ok } from '#shared/access/api';
import { deleteClient } from '#shared/access/oauth-clients';
import * as oauthOps from '#shared/access/operations/oauth';

export const handler = api(oauthOps.deleteClient, async ({ params, caller }) => {
  await deleteClient(caller, params.oauth_client_id);
  return ok({ object: 'oauth_client', id: params.oauth_client_id, deleted: true });
});
