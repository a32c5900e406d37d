import { listDomains } from '#shared/domains/domains';
import { api, listOk } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(domainOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listDomains(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
