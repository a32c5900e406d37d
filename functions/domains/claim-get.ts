import { getClaim } from '#shared/domains/claims';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

export const handler = api(domainOps.getClaim, async ({ params, caller }) =>
  ok(await getClaim(caller, params.domain_id)),
);
