import { api, ok } from '#shared/http/api';
import * as templateOps from '#shared/operations/templates';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listTemplates } from '#shared/templates';

export const handler = api(templateOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listTemplates(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return ok({ object: 'list', data: records, has_more: hasMore });
});
