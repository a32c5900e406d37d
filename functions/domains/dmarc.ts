import { api, ok } from '#shared/access/api';
import * as deliverabilityOps from '#shared/deliverability/operations';
import { dmarcSummary } from '#shared/deliverability/summaries';

export const handler = api(deliverabilityOps.dmarc, async ({ params, query, caller }) =>
  ok(await dmarcSummary(caller, params.domain_id, query.days ?? 30)),
);
