/**
 * The access feature's model: API keys, OAuth clients and OAuth grants as the API shows them, the
 * OAuth scopes and what POST /api-keys takes; the record types are derived from these schemas.
 * The OAuth request bodies stay in operations/oauth.ts: they check redirect URIs and PKCE values
 * with the logic's own functions (redirect-uri.ts, oauth-tokens.ts).
 */
import * as z from 'zod/mini';
import { id, timestamp } from '../platform/http/schemas';

export const PERMISSIONS = ['full_access', 'sending_access'] as const;
export const KEY_MODES = ['live', 'test'] as const;
const permission = /* @__PURE__ */ (() => z.enum(PERMISSIONS))();

export const apiKey = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('api_key'),
    id,
    name: z.string(),
    permission,
    mode: z.enum(KEY_MODES),
    created_at: timestamp,
    /** when the key last authenticated a request, to the hour (null: never) */
    last_used_at: z.nullable(timestamp),
  }))();
export type ApiKeyRecord = z.output<typeof apiKey>;

export const createApiKeyBody = /* @__PURE__ */ (() =>
  z.strictObject({
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
    permission: z.optional(permission),
    /** a live key may mint a test key of its project; the default is the caller's own mode */
    mode: z.optional(z.enum(KEY_MODES)),
  }))();

/** PATCH /api-keys/{id}: a new name (Resend's `apiKeys.update`). */
export const updateApiKeyBody = /* @__PURE__ */ (() =>
  z.strictObject({
    name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  }))();

export const OAUTH_SCOPES = ['full_access', 'sending_access'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

export const oauthClient = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('oauth_client'),
    id,
    client_id: z.string(),
    name: z.string(),
    redirect_uris: z.array(z.string()),
    created_at: timestamp,
  }))();
export type OAuthClientRecord = z.output<typeof oauthClient>;

/**
 * A grant as GET /oauth/grants lists it: our fields, and Resend's beside them (the SDK's `OAuthGrant`):
 * `scopes` is `[scope]`; `revoked_at`/`revoked_reason` are null, because revoking deletes a grant
 * (listed grants are live ones); `client` is the client's name (`logo_uri` null: clients have no
 * logo here), null while a just-deleted client's grants are being revoked.
 */
export const oauthGrant = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('oauth_grant'),
    id,
    client_id: z.string(),
    scope: z.enum(OAUTH_SCOPES),
    scopes: z.array(z.enum(OAUTH_SCOPES)),
    created_at: timestamp,
    expires_at: timestamp,
    revoked_at: z.null(),
    revoked_reason: z.null(),
    client: z.nullable(z.object({ name: z.string(), logo_uri: z.null() })),
  }))();
export type OAuthGrantRecord = z.output<typeof oauthGrant>;

/** Resend's reason for a grant revoked through DELETE /oauth/grants/{id} (the SDK's `revoked_reason`). */
export const REVOKED_FROM_API = 'revoked_from_api';

/** DELETE /oauth/grants/{id}: our `deleted`, and Resend's `revoked_at` and `revoked_reason`. */
export const revokedGrant = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('oauth_grant'),
    id,
    deleted: z.literal(true),
    revoked_at: timestamp,
    revoked_reason: z.literal(REVOKED_FROM_API),
  }))();
export type RevokedGrantRecord = z.output<typeof revokedGrant>;

/** The lookup item of a `client_id`. */
export interface ClientLookup {
  project_id: string;
  oauth_client_id: string;
  client_id: string;
  redirect_uris: string[];
  /** the client's name, for the grants list's `client` (absent on lookups written before it was copied here) */
  name?: string;
}
