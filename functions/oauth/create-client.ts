import { api, created } from '#shared/access/api';
import { createClient } from '#shared/access/oauth-clients';
import * as oauthOps from '#shared/access/operations/oauth';

export const handler = api(oauthOps.createClient, async ({ body, caller }) =>
  created(await createClient(caller, body)),
);
