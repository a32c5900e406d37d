import { retryEmail } from '#shared/emails';
import { api, ok } from '#shared/http/api';
import * as emailOps from '#shared/operations/emails';

export const handler = api(emailOps.retry, async ({ params, caller }) => ok(await retryEmail(caller, params.email_id)));
