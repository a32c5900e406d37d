import { listEmails } from '#shared/emails/emails';
import { api, listOk } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(emailOps.list, async ({ query, caller }) => {
  const { records, hasMore } = await listEmails(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(records, hasMore);
});
