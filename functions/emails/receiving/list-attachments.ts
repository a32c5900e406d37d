import { api, ok } from '#shared/http/api';
import * as receivingOps from '#shared/operations/received-emails';
import { listAttachments } from '#shared/received-emails';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(receivingOps.listAttachments, async ({ params, query, caller }) => {
  const { records, hasMore } = await listAttachments(caller, params.email_id, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return ok({ object: 'list', data: records, has_more: hasMore });
});
