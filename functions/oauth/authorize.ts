import { api, ok } from '#shared/access/api';
import { authorize } from '#shared/access/oauth';
import * as oauthOps from '#shared/access/operations/oauth';

export const handler = api(oauthOps.authorize, async ({ query, caller }) => ok(await authorize(caller, query)));
