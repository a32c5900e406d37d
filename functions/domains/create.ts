import { createDomain } from '#shared/domains';
import { api, created } from '#shared/http/api';
import * as domainOps from '#shared/operations/domains';

export const handler = api(domainOps.create, async ({ body, caller }) => created(await createDomain(caller, body)));
