import { api, ok } from '#shared/access/api';
import * as suppressionOps from '#shared/suppressions/operations';
import { addSuppressions } from '#shared/suppressions/suppressions';

/** Resend's `suppressions.batch.add`: each address with its entry, new or existing, in the order given. */
export const handler = api(suppressionOps.batchAdd, async ({ body, caller }) =>
  ok({ data: await addSuppressions(caller, body.emails) }),
);
