import { api, ok } from '#shared/http/api';
import * as suppressionOps from '#shared/operations/suppressions';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listSuppressions } from '#shared/suppressions';

export const handler = api(suppressionOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listSuppressions(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return ok({ object: 'list', data: records, has_more: hasMore });
});
