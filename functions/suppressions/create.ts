import { api, created, ok } from '#shared/access/api';
import * as suppressionOps from '#shared/suppressions/operations';
import { createSuppression } from '#shared/suppressions/suppressions';

/** 201 with the new entry; 200 with the existing one when the address was already suppressed. */
export const handler = api(suppressionOps.create, async ({ body, caller }) => {
  const { record, created: isNew } = await createSuppression(caller, body);
  return isNew ? created(record) : ok(record);
});
