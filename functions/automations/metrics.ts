import { api, ok } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { automationMetrics } from '#shared/automations/runs';

export const handler = api(automationOps.metrics, async ({ params, caller }) =>
  ok(await automationMetrics(caller, params.automation_id)),
);
