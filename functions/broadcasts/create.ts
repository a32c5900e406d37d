import { createBroadcast } from '#shared/broadcasts/broadcasts';
import { api, created } from '#shared/access/api';
import * as broadcastOps from '#shared/broadcasts/operations';

export const handler = api(broadcastOps.create, async ({ body, caller }) =>
  created(await createBroadcast(caller, body)),
);
