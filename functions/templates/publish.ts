import { api, ok } from '#shared/access/api';
import * as templateOps from '#shared/templates/operations';
import { publishTemplate } from '#shared/templates/templates';

export const handler = api(templateOps.publish, async ({ params, caller }) =>
  ok(await publishTemplate(caller, params.id_or_alias)),
);
