import { accepted, api } from '#shared/access/api';
import * as customEventOps from '#shared/automations/operations/custom-events';
import { sendEvent } from '#shared/automations/custom-events';

export const handler = api(customEventOps.send, async ({ body, caller }) => {
  const sent = await sendEvent(caller, body);
  return accepted({ object: 'event', event: sent.event, id: sent.id, contact_id: sent.contact_id });
});
