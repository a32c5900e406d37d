import { api, listOk } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listAutomations } from '#shared/automations/automations';

export const handler = api(automationOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listAutomations(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
