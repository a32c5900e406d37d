import { ok, publicApi } from '#shared/platform/http/public-api';
import { revokeToken } from '#shared/access/oauth-grants';
import * as oauthOps from '#shared/access/operations/oauth';

/** RFC 7009: 200 whether or not the token was live (nothing is revealed about it). */
export const handler = publicApi(oauthOps.revoke, async ({ body }) => {
  await revokeToken(body.token, body.client_id);
  return ok({});
});
