import { api, ok } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { updateAutomation } from '#shared/automations/automations';

export const handler = api(automationOps.update, async ({ params, body, caller }) => {
  const { id } = await updateAutomation(caller, params.automation_id, body);
  return ok({ object: 'automation', id });
});
