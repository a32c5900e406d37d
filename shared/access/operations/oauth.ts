/**
 * The OAuth operations: client registration, the consent interface's authorize call, the public
 * token and revocation endpoints (RFC 6749, RFC 7636 PKCE, RFC 7009), grants, and the RFC 8414
 * metadata document. Decisions the contract leaves open are in each description.
 */
import * as z from 'zod/mini';
import { defineOperation } from '../../platform/http/operation';
import { OAUTH_ERROR_CODES } from '../../platform/errors';
import { CODE_CHALLENGE_PATTERN, CODE_VERIFIER_PATTERN } from '../oauth-tokens';
import { MAX_REDIRECT_URI_LENGTH, MAX_REDIRECT_URIS, redirectUriProblem } from '../redirect-uri';
import { commonErrors, deleted, id, listOf, listQuery, notFoundResponse, timestamp } from '../../platform/http/schemas';
import { OAUTH_SCOPES, oauthClient, oauthGrant, revokedGrant } from '../model';

const scope = /* @__PURE__ */ (() => z.enum(OAUTH_SCOPES))();
const clientId = /* @__PURE__ */ (() => z.string().check(z.minLength(1), z.maxLength(128)))();
const redirectUri = /* @__PURE__ */ (() => z.string().check(z.minLength(1), z.maxLength(MAX_REDIRECT_URI_LENGTH)))();
const registrableRedirectUri = /* @__PURE__ */ (() =>
  z.string().check(
    z.superRefine((value, ctx) => {
      const problem = redirectUriProblem(value);
      if (problem) ctx.issues.push({ code: 'custom', message: problem, input: value });
    }),
  ))();

/** RFC 6749 §5.2: the token and revocation endpoints answer errors in this form, not in our envelope. */
const oauthErrorBody = /* @__PURE__ */ (() =>
  z.object({ error: z.enum(OAUTH_ERROR_CODES), error_description: z.string() }))();
const oauthErrors = /* @__PURE__ */ (() =>
  ({
    400: {
      description: 'RFC 6749 error: `invalid_request`, `invalid_grant`, `unsupported_grant_type` or `invalid_scope`',
      schema: oauthErrorBody,
    },
    401: { description: 'RFC 6749 error `invalid_client`: no client with this client_id', schema: oauthErrorBody },
    500: {
      description: 'RFC 6749 error `server_error`, with a request id',
      schema: z.object({ error: z.literal('server_error'), error_description: z.string() }),
    },
  }) as const)();

export const metadata = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getOAuthAuthorizationServerMetadata',
    summary: 'OAuth authorization server metadata (RFC 8414; no authentication)',
    description:
      "The issuer is the API's configured base URL (`PUBLIC_API_URL`: the API Gateway URL on AWS, the local runtime's own " +
      'URL locally), never taken from the request (its Host or X-Forwarded-* headers). ' +
      "`authorization_endpoint` is the console's consent page, /dashboard/oauth/authorize (the same parameters as GET /oauth/authorize): " +
      "the user signs in with a full-access key of the project, sees the client's name, the scope and the redirect host, and approves " +
      '(the page calls GET /oauth/authorize, which answers JSON, and redirects with `code` and `state`) or denies (`error=access_denied`). ' +
      'An unknown client or an unregistered redirect URI is shown as an error, never redirected to. GET /oauth/authorize stays for API clients.',
    tags: ['OAuth'],
    auth: 'none',
    responses: {
      200: {
        description: 'The metadata document',
        schema: z.object({
          issuer: z.string(),
          authorization_endpoint: z.string(),
          token_endpoint: z.string(),
          revocation_endpoint: z.string(),
          response_types_supported: z.array(z.string()),
          grant_types_supported: z.array(z.string()),
          code_challenge_methods_supported: z.array(z.string()),
          scopes_supported: z.array(z.string()),
          token_endpoint_auth_methods_supported: z.array(z.string()),
          revocation_endpoint_auth_methods_supported: z.array(z.string()),
        }),
      },
    },
  }))();

export const createClient = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'createOAuthClient',
    summary: 'Register an OAuth client',
    description:
      'A public client (no secret): it proves itself with PKCE. `client_id` is its public identifier (`es_client_` + 24 ' +
      `base62), unique in the whole deployment; \`id\` names it in this API. 1-${MAX_REDIRECT_URIS} redirect URIs, each an ` +
      'absolute `https` URI or `http` on a loopback host (127.0.0.1, [::1], localhost; RFC 8252), without fragment or ' +
      `user information, at most ${MAX_REDIRECT_URI_LENGTH} characters, only RFC 3986 URI characters (no spaces or control ` +
      'characters; anything else percent-encoded); duplicates are kept once. A loopback URI registered without a port ' +
      'admits any port (1-65535) at authorization; one registered with a port admits that port only (compared as a number).',
    tags: ['OAuth'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    body: z.strictObject({
      name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
      redirect_uris: z.array(registrableRedirectUri).check(z.minLength(1), z.maxLength(MAX_REDIRECT_URIS)),
    }),
    responses: { 201: { description: 'The new client', schema: oauthClient }, ...commonErrors },
  }))();

export const listClients = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listOAuthClients',
    summary: 'List OAuth clients, newest first',
    tags: ['OAuth'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of OAuth clients', schema: listOf(oauthClient) }, ...commonErrors },
  }))();

export const deleteClient = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteOAuthClient',
    summary: 'Delete an OAuth client and revoke its grants',
    description:
      "The path takes the client's `id` (not its `client_id`). Its codes and refresh tokens stop working at once, and every " +
      'grant of the client is revoked with its tokens.',
    tags: ['OAuth'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    params: z.strictObject({ oauth_client_id: id }),
    responses: {
      200: { description: 'The client is gone', schema: deleted('oauth_client') },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const authorize = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'authorize',
    summary: 'Issue an authorization code for the consent interface',
    description:
      'Called with a `full_access` API key of the project once the user agreed (an OAuth token cannot authorize: what a ' +
      'grant made would outlive it). Checks that the client belongs to the project, that `redirect_uri` is one it ' +
      'registered (exactly; a loopback `http` URI registered without a port may name any port, RFC 8252), that ' +
      '`code_challenge` is an S256 challenge (43-128 base64url characters; `code_challenge_method` may only be `S256`, its ' +
      'default here) and the scope (`full_access` or `sending_access`, default `sending_access`). Any invalid parameter ' +
      'is 422 with `errors[].path` naming it; the endpoint never redirects. Parameters it does not know are ignored, as ' +
      'RFC 6749 §3.1 requires; `response_type` may only be `code`. The code is single-use, expires in 10 minutes and is ' +
      'bound to the client, the redirect URI, the challenge and the scope; the tokens get the mode (live or test) of the ' +
      'key that authorized it. `state` comes back unchanged (null when absent).',
    tags: ['OAuth'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    query: z.object({
      client_id: clientId,
      redirect_uri: redirectUri,
      code_challenge: z
        .string()
        .check(z.regex(CODE_CHALLENGE_PATTERN, 'must be an S256 challenge: 43-128 base64url characters')),
      code_challenge_method: z.optional(z.literal('S256')),
      scope: z.optional(scope),
      state: z.optional(z.string().check(z.maxLength(2048))),
      response_type: z.optional(z.literal('code')),
    }),
    responses: {
      200: {
        description: 'The authorization code, for the consent interface to hand to the redirect URI',
        schema: z.object({
          object: z.literal('authorization_code'),
          code: z.string(),
          client_id: z.string(),
          redirect_uri: z.string(),
          scope,
          state: z.nullable(z.string()),
          expires_at: timestamp,
        }),
      },
      ...commonErrors,
    },
  }))();

const GRANT_TYPES = ['authorization_code', 'refresh_token'] as const;
/**
 * A string, then one of the two: a missing grant_type fails as `invalid_type` (-> invalid_request),
 * an unknown one as `invalid_value` (-> unsupported_grant_type, shared/platform/http/pipeline.ts). The meta
 * keeps the enum in the OpenAPI document, which documents a pipe by its input.
 */
const grantType = /* @__PURE__ */ (() =>
  z.pipe(z.string(), z.enum(GRANT_TYPES)).check(z.meta({ enum: [...GRANT_TYPES] })))();

const required = (
  type: (typeof GRANT_TYPES)[number],
  field: 'code' | 'code_verifier' | 'redirect_uri' | 'refresh_token',
) =>
  z.refine<{ grant_type: string } & Partial<Record<typeof field, string>>>(
    (b) => b.grant_type !== type || b[field] !== undefined,
    {
      message: `${field} is required for grant_type ${type}`,
      path: [field],
    },
  );

export const token = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'exchangeOAuthToken',
    summary: 'Exchange an authorization code or a refresh token for tokens (no API key)',
    description:
      'Form-encoded (`application/x-www-form-urlencoded`, RFC 6749) or JSON. `authorization_code`: the code, its ' +
      '`code_verifier` (PKCE: base64url(SHA-256(verifier)) must equal the challenge), the same `client_id` and ' +
      '`redirect_uri` as the authorization; a code works once, within 10 minutes. `refresh_token`: rotates the refresh ' +
      'token (the old one and the previous access token stop working; presenting an already rotated refresh token again ' +
      'revokes the whole grant, RFC 9700 §4.14.2, so the current tokens stop working too); `scope` may narrow full_access to ' +
      'sending_access for the new access token. Access tokens (`es_oat_`, 1 hour) are bearer keys of the granted scope; ' +
      'refresh tokens (`es_ort_`) last 30 days from their issue. Errors follow RFC 6749 §5.2 (`{error, ' +
      'error_description}`, 400, or 401 for `invalid_client`), not our envelope, because OAuth clients parse that form. ' +
      'Unknown parameters are ignored (RFC 6749 §3.2).',
    tags: ['OAuth'],
    auth: 'none',
    bodyFormats: ['json', 'form'],
    errorFormat: 'oauth',
    body: z
      .object({
        grant_type: grantType,
        client_id: clientId,
        code: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
        code_verifier: z.optional(
          z.string().check(z.regex(CODE_VERIFIER_PATTERN, 'must be 43-128 characters of A-Z a-z 0-9 - . _ ~')),
        ),
        redirect_uri: z.optional(redirectUri),
        refresh_token: z.optional(z.string().check(z.minLength(1), z.maxLength(256))),
        scope: z.optional(scope),
      })
      .check(
        required('authorization_code', 'code'),
        required('authorization_code', 'code_verifier'),
        required('authorization_code', 'redirect_uri'),
        required('refresh_token', 'refresh_token'),
      ),
    responses: {
      200: {
        description: 'The tokens (never cached: `Cache-Control: no-store`)',
        schema: z.object({
          access_token: z.string(),
          token_type: z.literal('Bearer'),
          expires_in: z.number(),
          refresh_token: z.string(),
          scope,
        }),
      },
      ...oauthErrors,
    },
  }))();

export const revoke = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'revokeOAuthToken',
    summary: 'Revoke an access or refresh token (RFC 7009; no API key)',
    description:
      'Form-encoded or JSON: `token` (an access or refresh token) and the `client_id` it was issued to; `token_type_hint` ' +
      'is accepted and not needed. Revoking either token revokes the whole grant (both tokens). Always 200 once the ' +
      'request is well-formed: an unknown, expired or already revoked token, or a token of another client, changes ' +
      'nothing and reveals nothing. Malformed requests get RFC 6749 errors like the token endpoint.',
    tags: ['OAuth'],
    auth: 'none',
    bodyFormats: ['json', 'form'],
    errorFormat: 'oauth',
    body: z.object({
      token: z.string().check(z.minLength(1), z.maxLength(256)),
      client_id: clientId,
      token_type_hint: z.optional(z.string().check(z.maxLength(64))),
    }),
    responses: {
      200: { description: 'The token no longer works (or never did)', schema: z.object({}) },
      400: oauthErrors[400],
      500: oauthErrors[500],
    },
  }))();

export const listGrants = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listOAuthGrants',
    summary: 'List the live OAuth grants of the project, newest first',
    description:
      'A grant is one authorization of a client: one access and one refresh token at a time. `expires_at` is when its ' +
      "refresh token expires (30 days after it was issued; each refresh moves it). Resend's fields (the SDK's `oauthGrants.list`) are " +
      'beside ours: `scopes` is `[scope]`; `revoked_at` and `revoked_reason` are always null, because a revoked grant is deleted ' +
      '(this list holds live grants only); `client` is `{name, logo_uri: null}` (clients have no logo here), null for a grant whose ' +
      'client was deleted a moment ago (its grants are being revoked).',
    tags: ['OAuth'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    query: listQuery,
    responses: { 200: { description: 'A page of grants', schema: listOf(oauthGrant) }, ...commonErrors },
  }))();

export const deleteGrant = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'deleteOAuthGrant',
    summary: 'Revoke an OAuth grant',
    description:
      'Its access and refresh token stop working at once (one transaction). A grant makes nothing else: its tokens cannot create API keys, OAuth clients or authorization codes. ' +
      "The answer has Resend's `revoked_at` (now) and `revoked_reason` (`revoked_from_api`, Resend's value) beside `deleted: true`; the grant itself is deleted, so it is not listed afterwards.",
    tags: ['OAuth'],
    auth: 'api_key',
    scope: 'full_access_api_key',
    params: z.strictObject({ grant_id: id }),
    responses: {
      200: { description: 'The grant is revoked', schema: revokedGrant },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();
