import { api, listOk } from '#shared/access/api';
import * as segmentOps from '#shared/audience/operations/segments';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listSegments } from '#shared/audience/segments';

export const handler = api(segmentOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listSegments(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
