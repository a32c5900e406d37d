import { api, ok } from '#shared/access/api';
import * as templateOps from '#shared/templates/operations';
import { getTemplate } from '#shared/templates/templates';

export const handler = api(templateOps.get, async ({ params, caller }) =>
  ok(await getTemplate(caller, params.id_or_alias)),
);
