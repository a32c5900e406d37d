import { api, listOk } from '#shared/access/api';
import * as receivingOps from '#shared/receiving/operations';
import { listAttachments } from '#shared/receiving/received-emails';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(receivingOps.listAttachments, async ({ params, query, caller }) => {
  const { records, hasMore } = await listAttachments(caller, params.email_id, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(records, hasMore);
});
