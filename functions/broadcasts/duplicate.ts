import { duplicateBroadcast } from '#shared/broadcasts';
import { api, created } from '#shared/http/api';
import * as broadcastOps from '#shared/operations/broadcasts';

export const handler = api(broadcastOps.duplicate, async ({ params, caller }) => created(await duplicateBroadcast(caller, params.broadcast_id)));
