import { api, ok } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { getRun } from '#shared/automations/runs';

export const handler = api(automationOps.getRun, async ({ params, caller }) =>
  ok(await getRun(caller, params.automation_id, params.run_id)),
);
