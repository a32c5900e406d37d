import { deleteBroadcast } from '#shared/broadcasts/broadcasts';
import { api, ok } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';

export const handler = api(broadcastOps.remove, async ({ params, caller }) => {
  await deleteBroadcast(caller, params.broadcast_id);
  return ok({ object: 'broadcast', id: params.broadcast_id, deleted: true });
});
