import { api, listOk } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import { listRuns, type RunStatus } from '#shared/automations/runs';

export const handler = api(automationOps.listRuns, async ({ params, query, caller }) => {
  const { records, hasMore } = await listRuns(caller, params.automation_id, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
    statuses: query.status ? (query.status.split(',') as RunStatus[]) : undefined,
  });
  return listOk(records, hasMore);
});
