import { api, ok } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { getAutomation } from '#shared/automations/automations';

export const handler = api(automationOps.get, async ({ params, caller }) =>
  ok(await getAutomation(caller, params.automation_id)),
);
