import { listEvents } from '#shared/events';
import { api, ok } from '#shared/http/api';
import * as eventOps from '#shared/operations/events';

export const handler = api(eventOps.list, async ({ caller }) => ok({ data: await listEvents(caller, eventOps.MAX_LISTED_EVENTS), has_more: false }));
