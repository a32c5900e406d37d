import { api, ok } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { stopAutomation } from '#shared/automations/automations';

export const handler = api(automationOps.stop, async ({ params, caller }) => {
  const { id } = await stopAutomation(caller, params.automation_id);
  return ok({ object: 'automation', id, status: 'disabled' });
});
