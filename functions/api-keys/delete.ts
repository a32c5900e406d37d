import { revokeApiKey } from '#shared/api-keys';
import { api, ok } from '#shared/http/api';
import * as apiKeyOps from '#shared/operations/api-keys';

export const handler = api(apiKeyOps.remove, async ({ params, caller }) => {
  await revokeApiKey(caller, params.api_key_id);
  return ok({ object: 'api_key', id: params.api_key_id, deleted: true });
});
