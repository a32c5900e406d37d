import { api, ok } from '#shared/access/api';
import * as customEventOps from '#shared/automations/operations/custom-events';
import { updateCustomEvent } from '#shared/automations/custom-events';

export const handler = api(customEventOps.update, async ({ params, body, caller }) => {
  const { id } = await updateCustomEvent(caller, params.id_or_name, body.schema);
  return ok({ object: 'event', id });
});
