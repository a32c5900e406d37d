import { api, listOk } from '#shared/access/api';
import { listGrants } from '#shared/access/oauth-grants';
import * as oauthOps from '#shared/access/operations/oauth';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(oauthOps.listGrants, async ({ query, caller }) => {
  const { records, hasMore } = await listGrants(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
