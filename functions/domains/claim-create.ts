import { createClaim } from '#shared/domains/claims';
import { api, created } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

export const handler = api(domainOps.claim, async ({ body, caller }) => created(await createClaim(caller, body)));
