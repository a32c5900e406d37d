import { ok, publicApi } from '#shared/platform/http/public-api';
import { exchangeCode, refreshGrant } from '#shared/access/oauth';
import * as oauthOps from '#shared/access/operations/oauth';

/** RFC 6749 §5.1: token responses are never cached. Errors: RFC 6749 form (the operation's `errorFormat`). */
const noStore = { 'cache-control': 'no-store', pragma: 'no-cache' };

export const handler = publicApi(oauthOps.token, async ({ body }) => {
  // the schema's refinements make the fields of each grant type present
  const tokens =
    body.grant_type === 'authorization_code'
      ? await exchangeCode({
          code: body.code!,
          code_verifier: body.code_verifier!,
          client_id: body.client_id,
          redirect_uri: body.redirect_uri!,
        })
      : await refreshGrant({ refresh_token: body.refresh_token!, client_id: body.client_id, scope: body.scope });
  return { ...ok(tokens), headers: noStore };
});
