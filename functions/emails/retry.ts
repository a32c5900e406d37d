import { retryEmail } from '#shared/emails/emails';
import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';

export const handler = api(emailOps.retry, async ({ params, caller }) => ok(await retryEmail(caller, params.email_id)));
