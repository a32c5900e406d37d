import { listEvents } from '#shared/events/events';
import { api, listOk } from '#shared/access/api';
import * as eventOps from '#shared/events/operations';

export const handler = api(eventOps.list, async ({ caller }) =>
  listOk(await listEvents(caller, eventOps.MAX_LISTED_EVENTS), false),
);
