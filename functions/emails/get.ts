import { getEmail } from '#shared/emails/emails';
import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';

export const handler = api(emailOps.get, async ({ params, caller }) => ok(await getEmail(caller, params.email_id)));
