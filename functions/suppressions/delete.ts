import { api, ok } from '#shared/http/api';
import * as suppressionOps from '#shared/operations/suppressions';
import { deleteSuppression } from '#shared/suppressions';

export const handler = api(suppressionOps.remove, async ({ params, caller }) => {
  const { id } = await deleteSuppression(caller, params.id_or_email);
  return ok({ object: 'suppression', id, deleted: true });
});
