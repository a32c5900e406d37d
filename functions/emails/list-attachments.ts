import { api, listOk } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';
import { listSentAttachments } from '#shared/emails/sent-attachments';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(emailOps.listAttachments, async ({ params, query, caller }) => {
  const { records, hasMore } = await listSentAttachments(caller, params.email_id, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
