import { api, created } from '#shared/access/api';
import { createImport } from '#shared/audience/imports';
import * as importOps from '#shared/audience/operations/imports';

export const handler = api(importOps.create, async ({ body, caller }) => created(await createImport(caller, body)));
