import { api, created } from '#shared/http/api';
import { createClient } from '#shared/oauth-clients';
import * as oauthOps from '#shared/operations/oauth';

export const handler = api(oauthOps.createClient, async ({ body, caller }) => created(await createClient(caller, body)));
