import { listEmails } from '#shared/emails/list-filters';
import { api, ok } from '#shared/access/api';
import * as emailOps from '#shared/emails/operations';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(emailOps.list, async ({ query, caller }) => {
  const { limit, after, before, ...filters } = query;
  const page = await listEmails(caller, { limit: limit ?? DEFAULT_PAGE_SIZE, after, before }, filters);
  return ok({
    object: 'list',
    data: page.records,
    has_more: page.hasMore,
    ...(page.cursor ? { cursor: page.cursor } : {}),
  });
});
