import { api, ok } from '#shared/access/api';
import * as suppressionOps from '#shared/suppressions/operations';
import { getSuppression } from '#shared/suppressions/suppressions';

export const handler = api(suppressionOps.get, async ({ params, caller }) =>
  ok(await getSuppression(caller, params.id_or_email)),
);
