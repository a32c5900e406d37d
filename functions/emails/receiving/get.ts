import { api, ok } from '#shared/access/api';
import * as receivingOps from '#shared/receiving/operations';
import { getReceivedEmail } from '#shared/receiving/received-emails';

export const handler = api(receivingOps.get, async ({ params, caller }) =>
  ok(await getReceivedEmail(caller, params.email_id)),
);
