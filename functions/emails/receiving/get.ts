import { api, ok } from '#shared/http/api';
import * as receivingOps from '#shared/operations/received-emails';
import { getReceivedEmail } from '#shared/received-emails';

export const handler = api(receivingOps.get, async ({ params, caller }) => ok(await getReceivedEmail(caller, params.email_id)));
