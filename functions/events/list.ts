import { listEvents } from '#shared/events/events';
import { api, ok } from '#shared/access/api';
import * as eventOps from '#shared/events/operations';

export const handler = api(eventOps.list, async ({ caller }) => ok({ object: 'list', data: await listEvents(caller, eventOps.MAX_LISTED_EVENTS), has_more: false }));
