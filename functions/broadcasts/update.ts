import { updateBroadcast } from '#shared/broadcasts/broadcasts';
import { api, ok } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';

export const handler = api(broadcastOps.update, async ({ params, body, caller }) =>
  ok(await updateBroadcast(caller, params.broadcast_id, body)),
);
