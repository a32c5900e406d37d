import { api, created } from '#shared/access/api';
import { createUpload } from '#shared/audience/import-file';
import * as importOps from '#shared/audience/operations/imports';

export const handler = api(importOps.createUpload, async ({ caller, body }) =>
  created(await createUpload(caller, body)),
);
