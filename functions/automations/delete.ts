import { api, ok } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { deleteAutomation } from '#shared/automations/automations';

export const handler = api(automationOps.remove, async ({ params, caller }) => {
  const id = await deleteAutomation(caller, params.automation_id);
  return ok({ object: 'automation', id, deleted: true });
});
