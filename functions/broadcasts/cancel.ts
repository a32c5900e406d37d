import { cancelBroadcast } from '#shared/broadcasts/broadcasts';
import { api, ok } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';

export const handler = api(broadcastOps.cancel, async ({ params, caller }) =>
  ok(await cancelBroadcast(caller, params.broadcast_id)),
);
