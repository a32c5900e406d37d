import { sendBroadcast } from '#shared/broadcasts';
import { api, ok } from '#shared/http/api';
import * as broadcastOps from '#shared/operations/broadcasts';

export const handler = api(broadcastOps.send, async ({ params, body, caller }) => ok(await sendBroadcast(caller, params.broadcast_id, body.scheduled_at)));
