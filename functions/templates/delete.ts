import { api, ok } from '#shared/http/api';
import * as templateOps from '#shared/operations/templates';
import { deleteTemplate } from '#shared/templates';

export const handler = api(templateOps.remove, async ({ params, caller }) => {
  const id = await deleteTemplate(caller, params.id_or_alias);
  return ok({ object: 'template', id, deleted: true });
});
