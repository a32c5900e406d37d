import { getDomain } from '#shared/domains/domains';
import { api, ok } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

export const handler = api(domainOps.get, async ({ params, caller }) => ok(await getDomain(caller, params.domain_id)));
