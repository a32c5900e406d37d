import { verifyDomain } from '#shared/domains';
import { api, ok } from '#shared/http/api';
import * as domainOps from '#shared/operations/domains';

export const handler = api(domainOps.verify, async ({ params, caller }) => ok(await verifyDomain(caller, params.domain_id)));
