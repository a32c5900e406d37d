import { api, listOk } from '#shared/access/api';
import { listImports } from '#shared/audience/imports';
import * as importOps from '#shared/audience/operations/imports';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(importOps.list, async ({ query, caller }) => {
  const { items, hasMore } = await listImports(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(items, hasMore);
});
