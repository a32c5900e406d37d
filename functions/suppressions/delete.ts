import { api, ok } from '#shared/access/api';
import * as suppressionOps from '#shared/suppressions/operations';
import { deleteSuppression } from '#shared/suppressions/suppressions';

export const handler = api(suppressionOps.remove, async ({ params, caller }) => {
  const { id } = await deleteSuppression(caller, params.id_or_email);
  return ok({ object: 'suppression', id, deleted: true });
});
