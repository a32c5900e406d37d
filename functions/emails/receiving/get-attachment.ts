import { api, ok } from '#shared/http/api';
import * as receivingOps from '#shared/operations/received-emails';
import { getAttachment } from '#shared/received-emails';

export const handler = api(receivingOps.getAttachment, async ({ params, caller }) => ok(await getAttachment(caller, params.email_id, params.attachment_id)));
