import { api, listOk } from '#shared/access/api';
import { listContactProperties } from '#shared/audience/contact-properties';
import * as propertyOps from '#shared/audience/operations/contact-properties';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(propertyOps.list, async ({ query, caller }) => {
  const { items, hasMore } = await listContactProperties(caller, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return listOk(items, hasMore);
});
