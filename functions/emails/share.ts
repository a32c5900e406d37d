import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';
import { shareEmail } from '#shared/emails/share';

export const handler = api(emailOps.share, async ({ params, body, caller }) =>
  ok(await shareEmail(caller, params.email_id, body.expires_in)),
);
