import { sendBroadcast } from '#shared/broadcasts/broadcasts';
import { api, ok } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';

export const handler = api(broadcastOps.send, async ({ params, body, caller }) =>
  ok(await sendBroadcast(caller, params.broadcast_id, body.scheduled_at)),
);
