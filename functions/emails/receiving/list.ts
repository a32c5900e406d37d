import { api, listOk } from '#shared/access/api';
import * as receivingOps from '#shared/receiving/operations';
import { listReceivedEmails } from '#shared/receiving/received-emails';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(receivingOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listReceivedEmails(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
