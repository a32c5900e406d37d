import { api, ok } from '#shared/access/api';
import { DEFAULT_PAGE_SIZE } from '#shared/platform/http/schemas';
import * as deliverabilityOps from '#shared/deliverability/operations';
import { listTlsReports } from '#shared/deliverability/summaries';

export const handler = api(deliverabilityOps.tlsReports, async ({ params, query, caller }) => {
  const { records, hasMore, dropped } = await listTlsReports(caller, params.domain_id, {
    limit: query.limit ?? DEFAULT_PAGE_SIZE,
    after: query.after,
  });
  return ok({ object: 'list', data: records, has_more: hasMore, dropped });
});
