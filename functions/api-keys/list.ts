import { listApiKeys } from '#shared/access/api-keys';
import { api, listOk } from '#shared/access/api';
import * as apiKeyOps from '#shared/access/operations/api-keys';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(apiKeyOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listApiKeys(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
