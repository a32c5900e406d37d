import { updateDomain } from '#shared/domains/domains';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

export const handler = api(domainOps.update, async ({ params, body, caller }) =>
  ok(await updateDomain(caller, params.domain_id, body)),
);
