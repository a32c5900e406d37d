import { getBroadcast } from '#shared/broadcasts';
import { api, ok } from '#shared/http/api';
import * as broadcastOps from '#shared/operations/broadcasts';

export const handler = api(broadcastOps.get, async ({ params, caller }) => ok(await getBroadcast(caller, params.broadcast_id)));
