import { api, ok } from '#shared/http/api';
import { authorize } from '#shared/oauth';
import * as oauthOps from '#shared/operations/oauth';

export const handler = api(oauthOps.authorize, async ({ query, caller }) => ok(await authorize(caller, query)));
