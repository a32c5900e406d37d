import { getBroadcast } from '#shared/broadcasts/broadcasts';
import { api, ok } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';

export const handler = api(broadcastOps.get, async ({ params, caller }) =>
  ok(await getBroadcast(caller, params.broadcast_id)),
);
