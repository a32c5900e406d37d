import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';
import { getSentAttachment } from '#shared/emails/sent-attachments';

export const handler = api(emailOps.getAttachment, async ({ params, caller }) =>
  ok(await getSentAttachment(caller, params.email_id, params.attachment_id)),
);
