import { deleteDomain } from '#shared/domains';
import { api, ok } from '#shared/http/api';
import * as domainOps from '#shared/operations/domains';

export const handler = api(domainOps.remove, async ({ params, caller }) => {
  await deleteDomain(caller, params.domain_id);
  return ok({ object: 'domain', id: params.domain_id, deleted: true });
});
