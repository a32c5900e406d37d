import { duplicateBroadcast } from '#shared/broadcasts/broadcasts';
import { api, created } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';

export const handler = api(broadcastOps.duplicate, async ({ params, caller }) =>
  created(await duplicateBroadcast(caller, params.broadcast_id)),
);
