import { createApiKey } from '#shared/api-keys';
import { api, created } from '#shared/http/api';
import * as apiKeyOps from '#shared/operations/api-keys';

export const handler = api(apiKeyOps.create, async ({ body, caller }) => {
  const { token, record } = await createApiKey(caller, body);
  return created({ id: record.id, token });
});
