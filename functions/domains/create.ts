import { createDomain } from '#shared/domains/domains';
import { api, created } from '#shared/access/api';
import * as domainOps from '#shared/domains/operations';

export const handler = api(domainOps.create, async ({ body, caller }) => created(await createDomain(caller, body)));
