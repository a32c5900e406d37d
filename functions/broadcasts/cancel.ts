import { cancelBroadcast } from '#shared/broadcasts';
import { api, ok } from '#shared/http/api';
import * as broadcastOps from '#shared/operations/broadcasts';

export const handler = api(broadcastOps.cancel, async ({ params, caller }) => ok(await cancelBroadcast(caller, params.broadcast_id)));
