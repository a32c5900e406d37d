import { renameApiKey } from '#shared/access/api-keys';
import { api, ok } from '#shared/access/api';
import * as apiKeyOps from '#shared/access/operations/api-keys';

export const handler = api(apiKeyOps.update, async ({ params, body, caller }) =>
  ok(await renameApiKey(caller, params.api_key_id, body.name)),
);
