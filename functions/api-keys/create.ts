import { createApiKey } from '#shared/access/api-keys';
import { api, created } from '#shared/access/api';
import * as apiKeyOps from '#shared/access/operations/api-keys';

export const handler = api(apiKeyOps.create, async ({ body, caller }) => {
  const { token, record } = await createApiKey(caller, body);
  return created({ id: record.id, token });
});
