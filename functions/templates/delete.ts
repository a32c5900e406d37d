import { api, ok } from '#shared/access/api';
import * as templateOps from '#shared/templates/operations';
import { deleteTemplate } from '#shared/templates/templates';

export const handler = api(templateOps.remove, async ({ params, caller }) => {
  const id = await deleteTemplate(caller, params.id_or_alias);
  return ok({ object: 'template', id, deleted: true });
});
