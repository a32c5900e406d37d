import { listSegmentContacts } from '#shared/audience/contacts';
import { contactInFormat } from '#shared/audience/contact-properties';
import { api, listOk } from '#shared/access/api';
import * as contactOps from '#shared/audience/operations/contacts';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';

export const handler = api(contactOps.listBySegment, async ({ params, query, caller }) => {
  const { properties_format, ...page } = query;
  const { items, hasMore } = await listSegmentContacts(caller, params.segment_id, {
    ...page,
    limit: page.limit ?? DEFAULT_PAGE_SIZE,
  });
  return listOk(
    items.map((c) => contactInFormat(c, properties_format)),
    hasMore,
  );
});
