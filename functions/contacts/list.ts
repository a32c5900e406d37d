import { listContacts } from '#shared/audience/contacts';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(contactOps.list, async ({ query, caller }) => {
  const { items, hasMore } = await listContacts(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return ok({ object: 'list', data: items, has_more: hasMore });
});
