/**
 * The OAuth authorization code flow with PKCE (RFC 6749 §4.1, RFC 7636) and refresh token
 * rotation. Clients: ./oauth-clients.ts; grants, tokens and revocation: ./oauth-grants.ts;
 * formats, lifetimes and the PKCE check: ./oauth-tokens.ts.
 *
 * 1. The consent interface calls `authorize` with the project's key once the user agreed: it
 *    stores a code (hashed, 10-minute TTL) bound to the client, redirect URI, challenge and scope.
 * 2. The client calls the token endpoint without a key: `exchangeCode` reads the code and the
 *    client in one round trip, checks them and PKCE, and in ONE transaction deletes the code on
 *    the condition that it still exists (so it works once, even for two racing requests),
 *    checks the client still exists, and writes the grant and its two token items.
 * 3. `refreshGrant` rotates: one transaction marks the presented refresh token rotated
 *    (conditionally: a refresh token works once), deletes the previous access token, points the
 *    grant at the new pair (on the condition that it still holds the old one) and writes the new
 *    pair. The rotated token's item stays until it would have expired: presenting it again is
 *    reuse (RFC 9700 §4.14.2: a stolen token, or a client replaying it), and revokes the grant,
 *    so the current pair stops working too, whoever holds it.
 *
 * Errors of steps 2 and 3 are RFC 6749 §5.2 codes (`oauthError`), which the token endpoint
 * renders in the RFC's form.
 */
import { hashToken } from './api-key-token';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  checkExists,
  del,
  isConditionFailed,
  put,
  putItem,
  transact,
  update,
  type Item,
} from '../platform/db/table';
import { oauthError, unprocessable } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { findClient } from './oauth-clients';
import type { ClientLookup } from './model';
import {
  newTokenPair,
  revokeGrantById,
  tokenResponse,
  tokenWrites,
  type GrantItem,
  type TokenItem,
} from './oauth-grants';
import {
  CLIENT_ID_PATTERN,
  CODE_TTL_SECONDS,
  DEFAULT_SCOPE,
  epochSeconds,
  isoFromEpoch,
  newCode,
  pkceMatches,
  scopeCovers,
} from './oauth-tokens';
import type { OAuthScope } from './model';
import { redirectUriMatches } from './redirect-uri';

interface CodeItem {
  project_id: string;
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope: OAuthScope;
  livemode: boolean;
  expires_at: number;
}

export interface AuthorizeInput {
  client_id: string;
  redirect_uri: string;
  code_challenge: string;
  scope?: OAuthScope;
  state?: string;
}

/** GET /oauth/authorize: a code for the consent interface. Every refusal is a 422 naming the parameter. */
export async function authorize(caller: Caller, input: AuthorizeInput) {
  const client = CLIENT_ID_PATTERN.test(input.client_id) ? await findClient(input.client_id) : undefined;
  if (!client || client.project_id !== caller.projectId) {
    throw unprocessable([
      { code: 'unknown_client', message: 'No OAuth client with this client_id in this project', path: 'client_id' },
    ]);
  }
  if (!client.redirect_uris.some((registered) => redirectUriMatches(registered, input.redirect_uri))) {
    throw unprocessable([
      { code: 'redirect_uri_mismatch', message: 'redirect_uri is not one the client registered', path: 'redirect_uri' },
    ]);
  }
  const code = newCode();
  const scope = input.scope ?? DEFAULT_SCOPE;
  const item: CodeItem = {
    project_id: caller.projectId,
    client_id: input.client_id,
    redirect_uri: input.redirect_uri,
    code_challenge: input.code_challenge,
    scope,
    livemode: caller.livemode,
    expires_at: epochSeconds() + CODE_TTL_SECONDS,
  };
  await putItem(
    put(
      { ...keys.oauthCode(hashToken(code)), type: 'oauth_code', ...item },
      { ifAbsent: () => new Error('authorization code collision') },
    ),
  );
  return {
    object: 'authorization_code' as const,
    code,
    client_id: input.client_id,
    redirect_uri: input.redirect_uri,
    scope,
    state: input.state ?? null,
    expires_at: isoFromEpoch(item.expires_at),
  };
}

/** The item at `key` and the lookup item of `clientId`, in one round trip; nothing for a client id no client can have. */
async function readWithClient<T>(key: keys.Key, clientId: string): Promise<{ item?: T; client?: ClientLookup }> {
  if (!CLIENT_ID_PATTERN.test(clientId)) return {};
  const clientKey = keys.oauthClientId(clientId);
  const items = await batchGet<Item>([key, clientKey]);
  return {
    item: items.find((i) => i.PK === key.PK) as T | undefined,
    client: items.find((i) => i.PK === clientKey.PK) as ClientLookup | undefined,
  };
}

const unknownClient = () => oauthError('invalid_client', 'Unknown client_id');

export interface CodeExchange {
  code: string;
  code_verifier: string;
  client_id: string;
  redirect_uri: string;
}

/** grant_type=authorization_code. */
export async function exchangeCode(input: CodeExchange) {
  const codeKey = keys.oauthCode(hashToken(input.code));
  const { item: code, client } = await readWithClient<CodeItem>(codeKey, input.client_id);
  if (!client) throw unknownClient();
  const used = () => oauthError('invalid_grant', 'The authorization code is invalid, expired or already used');
  if (!code || code.expires_at <= epochSeconds()) throw used();
  if (code.client_id !== input.client_id)
    throw oauthError('invalid_grant', 'The authorization code was issued to another client');
  if (code.redirect_uri !== input.redirect_uri)
    throw oauthError('invalid_grant', 'redirect_uri differs from the one of the authorization request');
  if (!pkceMatches(input.code_verifier, code.code_challenge))
    throw oauthError('invalid_grant', 'code_verifier does not match the code_challenge');

  const pair = newTokenPair();
  const grant: GrantItem = {
    project_id: code.project_id,
    id: newId(),
    client_id: code.client_id,
    scope: code.scope,
    livemode: code.livemode,
    created_at: nowIso(),
    access_hash: pair.access_hash,
    refresh_hash: pair.refresh_hash,
    expires_at: pair.refresh_expires_at,
  };
  await transact([
    del(codeKey, { ifExists: used }), // single use: of two racing exchanges, one wins
    checkExists(keys.oauthClientId(code.client_id), unknownClient), // a client deleted meanwhile gets nothing
    put({ ...keys.oauthGrant(grant.project_id, grant.id), type: 'oauth_grant', ...grant }),
    ...tokenWrites(grant, pair, grant.scope),
  ]);
  return tokenResponse(pair, grant.scope);
}

export interface RefreshInput {
  refresh_token: string;
  client_id: string;
  scope?: OAuthScope;
}

/** grant_type=refresh_token: a new pair; the presented refresh token and the previous access token stop working. */
export async function refreshGrant(input: RefreshInput) {
  const refreshKey = keys.oauthRefreshToken(hashToken(input.refresh_token));
  const { item, client } = await readWithClient<TokenItem>(refreshKey, input.client_id);
  if (!client) throw unknownClient();
  const invalid = () => oauthError('invalid_grant', 'The refresh token is invalid, expired, revoked or already used');
  if (!item || !item.scope || item.expires_at <= epochSeconds()) throw invalid();
  if (item.client_id !== input.client_id)
    throw oauthError('invalid_grant', 'The refresh token was issued to another client');
  if (item.rotated_at) throw await reused(item);
  const accessScope = input.scope ?? item.scope;
  if (!scopeCovers(item.scope, accessScope))
    throw oauthError('invalid_scope', `The grant has ${item.scope}; a refresh cannot widen it`);

  const pair = newTokenPair();
  const grant = {
    project_id: item.project_id,
    id: item.grant_id,
    client_id: item.client_id,
    scope: item.scope,
    livemode: item.livemode,
  };
  try {
    await transact([
      // a refresh token works once: the item stays, marked, to recognise a replay
      update(
        refreshKey,
        {
          set: { rotated_at: nowIso() },
          condition: {
            expression: 'attribute_exists(PK) AND attribute_not_exists(#rotated)',
            names: { '#rotated': 'rotated_at' },
          },
        },
        { tag: ROTATED, withItem: true },
      ),
      del(keys.oauthAccessToken(item.access_hash)),
      update(
        keys.oauthGrant(grant.project_id, grant.id),
        {
          set: { access_hash: pair.access_hash, refresh_hash: pair.refresh_hash, expires_at: pair.refresh_expires_at },
          condition: {
            expression: '#refresh = :refresh',
            names: { '#refresh': 'refresh_hash' },
            values: { ':refresh': item.refresh_hash },
          },
        },
        invalid, // revoked (or refreshed) meanwhile
      ),
      checkExists(keys.oauthClientId(grant.client_id), unknownClient),
      ...tokenWrites(grant, pair, accessScope),
    ]);
  } catch (error) {
    if (!isConditionFailed(error, ROTATED)) throw error;
    // another request rotated it first (the same token presented twice at once): reuse as well; gone: revoked
    if (error.item?.rotated_at) throw await reused(item);
    throw invalid();
  }
  return tokenResponse(pair, accessScope);
}

const ROTATED = 'refresh token already rotated or gone';

/** RFC 9700 §4.14.2: a rotated refresh token presented again revokes its grant; the answer is the usual invalid_grant. */
async function reused(item: TokenItem): Promise<Error> {
  await revokeGrantById(item.project_id, item.grant_id);
  return oauthError('invalid_grant', 'The refresh token was already used: the grant is revoked');
}
