import { getEmail } from '#shared/emails';
import { api, ok } from '#shared/http/api';
import * as emailOps from '#shared/operations/emails';

export const handler = api(emailOps.get, async ({ params, caller }) => ok(await getEmail(caller, params.email_id)));
