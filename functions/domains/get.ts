import { getDomain } from '#shared/domains';
import { api, ok } from '#shared/http/api';
import * as domainOps from '#shared/operations/domains';

export const handler = api(domainOps.get, async ({ params, caller }) => ok(await getDomain(caller, params.domain_id)));
