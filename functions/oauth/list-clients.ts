import { api, listOk } from '#shared/access/api';
import { listClients } from '#shared/access/oauth-clients';
import * as oauthOps from '#shared/access/operations/oauth';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(oauthOps.listClients, async ({ query, caller }) => {
  const { records, hasMore } = await listClients(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
