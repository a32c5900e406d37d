import { api, listOk } from '#shared/access/api';
import * as logOps from '#shared/logs/operations';
import { listLogs } from '#shared/logs/request-log';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(logOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listLogs(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
