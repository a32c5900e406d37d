import { api, created } from '#shared/access/api';
import * as templateOps from '#shared/templates/operations';
import { duplicateTemplate } from '#shared/templates/templates';

export const handler = api(templateOps.duplicate, async ({ params, caller }) =>
  created(await duplicateTemplate(caller, params.id_or_alias)),
);
