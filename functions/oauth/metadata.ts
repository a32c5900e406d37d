import { ok, publicApi } from '#shared/platform/http/public-api';
import * as oauthOps from '#shared/access/operations/oauth';
import { OAUTH_SCOPES } from '#shared/access/model';

/**
 * RFC 8414 metadata. The issuer is the API's configured base URL (PUBLIC_API_URL: the stack sets
 * the API Gateway URL, the local runtime its own), never the request's Host or X-Forwarded-*
 * headers, which the caller chooses (RFC 8414 §3.3: the issuer must be the one clients expect).
 */
export const handler = publicApi(oauthOps.metadata, async () => {
  const configured = process.env.PUBLIC_API_URL;
  if (!configured) throw new Error('PUBLIC_API_URL is not set: the OAuth issuer comes from configuration');
  const issuer = configured.replace(/\/+$/, '');
  return ok({
    issuer,
    // the console's consent page (functions/dashboard/app/screens/consent.ts), which calls GET /oauth/authorize once the user approves
    authorization_endpoint: `${issuer}/dashboard/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    revocation_endpoint: `${issuer}/oauth/revoke`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    scopes_supported: [...OAUTH_SCOPES],
    token_endpoint_auth_methods_supported: ['none'],
    revocation_endpoint_auth_methods_supported: ['none'],
  });
});
