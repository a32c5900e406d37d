import { verifyDomain } from '#shared/domains/domains';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

export const handler = api(domainOps.verify, async ({ params, caller }) =>
  ok(await verifyDomain(caller, params.domain_id)),
);
