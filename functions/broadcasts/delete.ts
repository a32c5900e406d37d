import { deleteBroadcast } from '#shared/broadcasts';
import { api, ok } from '#shared/http/api';
import * as broadcastOps from '#shared/operations/broadcasts';

export const handler = api(broadcastOps.remove, async ({ params, caller }) => {
  await deleteBroadcast(caller, params.broadcast_id);
  return ok({ object: 'broadcast', id: params.broadcast_id, deleted: true });
});
