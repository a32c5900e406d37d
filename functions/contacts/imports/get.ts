import { api, ok } from '#shared/access/api';
import { getImport } from '#shared/audience/imports';
import * as importOps from '#shared/audience/operations/imports';

export const handler = api(importOps.get, async ({ params, caller }) => ok(await getImport(caller, params.import_id)));
