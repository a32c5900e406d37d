import { api, listOk } from '#shared/access/api';
import * as suppressionOps from '#shared/suppressions/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listSuppressions } from '#shared/suppressions/suppressions';

export const handler = api(suppressionOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listSuppressions(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
