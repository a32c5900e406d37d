import { api, created } from '#shared/access/api';
import * as automationOps from '#shared/automations/operations/automations';
import { createAutomation } from '#shared/automations/automations';

export const handler = api(automationOps.create, async ({ body, caller }) => {
  const { id } = await createAutomation(caller, body);
  return created({ object: 'automation', id });
});
