import { listContactSegments } from '#shared/audience/contacts';
import { api, listOk } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(contactOps.listSegments, async ({ params, query, caller }) => {
  const { items, hasMore } = await listContactSegments(caller, params.contact_id, {
    ...query,
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(items, hasMore);
});
