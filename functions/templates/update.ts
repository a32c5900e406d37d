import { api, ok } from '#shared/access/api';
import * as templateOps from '#shared/templates/operations';
import { updateTemplate } from '#shared/templates/templates';

export const handler = api(templateOps.update, async ({ params, body, caller }) =>
  ok(await updateTemplate(caller, params.id_or_alias, body)),
);
