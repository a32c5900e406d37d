import { createBroadcast } from '#shared/broadcasts';
import { api, created } from '#shared/http/api';
import * as broadcastOps from '#shared/operations/broadcasts';

export const handler = api(broadcastOps.create, async ({ body, caller }) => created(await createBroadcast(caller, body)));
