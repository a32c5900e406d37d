import { api, created } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { duplicateAutomation } from '#shared/automations/automations';

export const handler = api(automationOps.duplicate, async ({ params, caller }) => {
  const { id } = await duplicateAutomation(caller, params.automation_id);
  return created({ object: 'automation', id });
});
