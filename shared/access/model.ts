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
const permission = z.enum(PERMISSIONS);

export const apiKey = z.object({
  object: z.literal('api_key'),
  id,
  name: z.string(),
  permission,
  mode: z.enum(KEY_MODES),
  created_at: timestamp,
});
export type ApiKeyRecord = z.output<typeof apiKey>;

export const createApiKeyBody = z.strictObject({
  name: z.string().check(z.trim(), z.minLength(1), z.maxLength(256)),
  permission: z.optional(permission),
});

export const OAUTH_SCOPES = ['full_access', 'sending_access'] as const;
export type OAuthScope = (typeof OAUTH_SCOPES)[number];

export const oauthClient = z.object({
  object: z.literal('oauth_client'),
  id,
  client_id: z.string(),
  name: z.string(),
  redirect_uris: z.array(z.string()),
  created_at: timestamp,
});
export type OAuthClientRecord = z.output<typeof oauthClient>;

export const oauthGrant = z.object({
  object: z.literal('oauth_grant'),
  id,
  client_id: z.string(),
  scope: z.enum(OAUTH_SCOPES),
  created_at: timestamp,
  expires_at: timestamp,
});
export type OAuthGrantRecord = z.output<typeof oauthGrant>;
