import { updateBroadcast } from '#shared/broadcasts';
import { api, ok } from '#shared/http/api';
import * as broadcastOps from '#shared/operations/broadcasts';

export const handler = api(broadcastOps.update, async ({ params, body, caller }) => ok(await updateBroadcast(caller, params.broadcast_id, body)));
