import { api, ok } from '#shared/access/api';
import { domainCompliance } from '#shared/deliverability/compliance';
import * as deliverabilityOps from '#shared/deliverability/operations';

export const handler = api(deliverabilityOps.compliance, async ({ params, caller }) =>
  ok(await domainCompliance(caller, params.domain_id)),
);
