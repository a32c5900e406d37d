import { api, ok } from '#shared/access/api';
import * as customEventOps from '#shared/automations/operations/custom-events';
import { getCustomEvent } from '#shared/automations/custom-events';

export const handler = api(customEventOps.get, async ({ params, caller }) =>
  ok(await getCustomEvent(caller, params.id_or_name)),
);
