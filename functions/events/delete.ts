import { api, ok } from '#shared/access/api';
import * as customEventOps from '#shared/automations/operations/custom-events';
import { deleteCustomEvent } from '#shared/automations/custom-events';

export const handler = api(customEventOps.remove, async ({ params, caller }) => {
  const id = await deleteCustomEvent(caller, params.id_or_name);
  return ok({ object: 'event', id, deleted: true });
});
