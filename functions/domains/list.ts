import { listDomains } from '#shared/domains';
import { api, ok } from '#shared/http/api';
import * as domainOps from '#shared/operations/domains';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(domainOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listDomains(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return ok({ object: 'list', data: records, has_more: hasMore });
});
