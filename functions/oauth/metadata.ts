import { ok, publicApi } from '#shared/platform/http/public-api';
import * as oauthOps from '#shared/access/operations/oauth';
import { OAUTH_SCOPES } from '#shared/access/oauth-tokens';

const HOST = /^[A-Za-z0-9.-]+(?::\d{1,5})?$|^\[[0-9A-Fa-f:.]+\](?::\d{1,5})?$/;

/**
 * RFC 8414 metadata. The issuer is the URL the request reached: its Host header (API Gateway
 * passes the API's domain) and X-Forwarded-Proto (https on AWS; absent locally, so http).
 */
export const handler = publicApi(oauthOps.metadata, async ({ headers }) => {
  const host = headers.host && HOST.test(headers.host) ? headers.host : 'localhost';
  const proto = headers['x-forwarded-proto']?.split(',')[0].trim() === 'https' ? 'https' : 'http';
  const issuer = `${proto}://${host}`;
  return ok({
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
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
