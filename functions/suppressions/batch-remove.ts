import { api, ok } from '#shared/access/api';
import * as suppressionOps from '#shared/suppressions/operations';
import { removeSuppressions } from '#shared/suppressions/suppressions';

/** Resend's `suppressions.batch.remove`: by `emails` or by `ids`; each value answered `deleted: true` or `false`, in the order given. */
export const handler = api(suppressionOps.batchRemove, async ({ body, caller }) =>
  ok({ data: await removeSuppressions(caller, body) }),
);
