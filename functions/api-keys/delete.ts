import { revokeApiKey } from '#shared/access/api-keys';
import { api, ok } from '#shared/access/api';
import * as apiKeyOps from '#shared/access/operations/api-keys';

export const handler = api(apiKeyOps.remove, async ({ params, caller }) => {
  await revokeApiKey(caller, params.api_key_id);
  return ok({ object: 'api_key', id: params.api_key_id, deleted: true });
});
