import { updateDomain } from '#shared/domains';
import { api, ok } from '#shared/http/api';
import * as domainOps from '#shared/operations/domains';

export const handler = api(domainOps.update, async ({ params, body, caller }) => ok(await updateDomain(caller, params.domain_id, body)));
