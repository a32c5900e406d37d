import { api, created } from '#shared/access/api';
import * as customEventOps from '#shared/automations/operations/custom-events';
import { createCustomEvent } from '#shared/automations/custom-events';

export const handler = api(customEventOps.create, async ({ body, caller }) => {
  const { id } = await createCustomEvent(caller, body);
  return created({ object: 'event', id });
});
