import { listSegmentContacts } from '#shared/audience/contacts';
import { api, ok } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(contactOps.listBySegment, async ({ params, query, caller }) => {
  const { items, hasMore } = await listSegmentContacts(caller, params.segment_id, { ...query, limit: query.limit ?? DEFAULT_PAGE_SIZE });
  return ok({ object: 'list', data: items, has_more: hasMore });
});
