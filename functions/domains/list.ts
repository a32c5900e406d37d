import { listDomains } from '#shared/domains/domains';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(domainOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listDomains(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return ok({ object: 'list', data: records, has_more: hasMore });
});
