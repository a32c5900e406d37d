import { api, listOk } from '#shared/access/api';
import * as templateOps from '#shared/templates/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listTemplates } from '#shared/templates/templates';

export const handler = api(templateOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listTemplates(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
