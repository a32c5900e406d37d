import { deleteDomain } from '#shared/domains/domains';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

export const handler = api(domainOps.remove, async ({ params, caller }) => {
  await deleteDomain(caller, params.domain_id);
  return ok({ object: 'domain', id: params.domain_id, deleted: true });
});
