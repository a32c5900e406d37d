import { api, ok } from '#shared/access/api';
import * as receivingOps from '#shared/receiving/operations';
import { getAttachment } from '#shared/receiving/received-emails';

export const handler = api(receivingOps.getAttachment, async ({ params, caller }) =>
  ok(await getAttachment(caller, params.email_id, params.attachment_id)),
);
