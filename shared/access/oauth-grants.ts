/**
 * OAuth grants: one authorization of a client by a project, holding one access token and one
 * refresh token at a time. Three items, always written and deleted together in one transaction:
 * the grant under its project (listed by GET /oauth/grants, with the hashes of its live tokens)
 * and one global item per token keyed by the token's SHA-256 (the access token's item is what
 * `authenticate` reads, in one GetItem, like an API key's hash item). Every item has a TTL:
 * the access token's 1 hour, the grant's and the refresh token's 30 days. A refresh token that a
 * refresh rotated away stays, marked `rotated_at`, until its TTL: presenting it again revokes the
 * grant (shared/access/oauth.ts).
 *
 * Revoking deletes the three items on the condition that the grant still holds the token
 * hashes that were read, so a refresh committing in between cannot leave a fresh pair alive:
 * the revocation fails its condition, reads again and deletes the new pair.
 */
import { hashToken } from './api-key-token';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  getItem,
  isConditionFailed,
  put,
  queryPage,
  transact,
  type PageRequest,
  type WriteAction,
} from '../platform/db/table';
import { conflict, notFound } from '../platform/errors';
import { nowIso } from '../platform/ids';
import {
  ACCESS_TOKEN_PATTERN,
  ACCESS_TOKEN_TTL_SECONDS,
  epochSeconds,
  isoFromEpoch,
  newAccessToken,
  newRefreshToken,
  REFRESH_TOKEN_PATTERN,
  REFRESH_TOKEN_TTL_SECONDS,
} from './oauth-tokens';
import { REVOKED_FROM_API, type OAuthGrantRecord, type OAuthScope, type RevokedGrantRecord } from './model';
import type { ClientLookup } from './model';

/** The token hashes a grant holds, and each token item holds too (so either token finds the pair). */
export interface TokenHashes {
  access_hash: string;
  refresh_hash: string;
}

export interface GrantItem extends TokenHashes {
  project_id: string;
  id: string;
  client_id: string;
  scope: OAuthScope;
  livemode: boolean;
  created_at: string;
  /** epoch seconds: when the refresh token expires (the TTL attribute) */
  expires_at: number;
}

/** A token item: which grant it belongs to, and the pair it is part of. */
export interface TokenItem extends TokenHashes {
  project_id: string;
  grant_id: string;
  client_id: string;
  livemode: boolean;
  expires_at: number;
  /** access token items: the scope the token acts with (what `authenticate` reads) */
  permission?: OAuthScope;
  /** refresh token items: the grant's scope, the most a refresh may ask for */
  scope?: OAuthScope;
  /**
   * refresh token items: when a refresh rotated it away. The item stays (until its own expiry) so that
   * presenting it again is recognised as reuse and revokes the grant (RFC 9700 §4.14.2).
   */
  rotated_at?: string;
}

/** A new token pair, plain (for the client, once) and hashed (for the table). */
export interface TokenPair extends TokenHashes {
  access_token: string;
  refresh_token: string;
  access_expires_at: number;
  refresh_expires_at: number;
}

export function newTokenPair(now: number = epochSeconds()): TokenPair {
  const access_token = newAccessToken();
  const refresh_token = newRefreshToken();
  return {
    access_token,
    refresh_token,
    access_hash: hashToken(access_token),
    refresh_hash: hashToken(refresh_token),
    access_expires_at: now + ACCESS_TOKEN_TTL_SECONDS,
    refresh_expires_at: now + REFRESH_TOKEN_TTL_SECONDS,
  };
}

/** The RFC 6749 §5.1 token response. */
export const tokenResponse = (pair: TokenPair, scope: OAuthScope) => ({
  access_token: pair.access_token,
  token_type: 'Bearer' as const,
  expires_in: ACCESS_TOKEN_TTL_SECONDS,
  refresh_token: pair.refresh_token,
  scope,
});

/** The puts of a grant's token items; `accessScope` may be narrower than the grant's scope. */
export function tokenWrites(
  grant: Pick<GrantItem, 'project_id' | 'id' | 'client_id' | 'scope' | 'livemode'>,
  pair: TokenPair,
  accessScope: OAuthScope,
): WriteAction[] {
  const common = {
    project_id: grant.project_id,
    grant_id: grant.id,
    client_id: grant.client_id,
    livemode: grant.livemode,
    access_hash: pair.access_hash,
    refresh_hash: pair.refresh_hash,
  };
  return [
    put({
      ...keys.oauthAccessToken(pair.access_hash),
      type: 'oauth_access_token',
      ...common,
      permission: accessScope,
      expires_at: pair.access_expires_at,
    }),
    put({
      ...keys.oauthRefreshToken(pair.refresh_hash),
      type: 'oauth_refresh_token',
      ...common,
      scope: grant.scope,
      expires_at: pair.refresh_expires_at,
    }),
  ];
}

/** The deletes that revoke a grant: with `guard`, only if it still holds exactly these tokens (else ConditionFailed 'grant changed': a refresh, or the grant went, between the read and the revocation). */
function grantRemoval(projectId: string, grantId: string, hashes: TokenHashes, guard = true): WriteAction[] {
  const grantKey = keys.oauthGrant(projectId, grantId);
  return [
    guard
      ? del(grantKey, {
          ifUnchanged: { expected: { refresh_hash: hashes.refresh_hash }, onChanged: { tag: 'grant changed' } },
        })
      : del(grantKey),
    del(keys.oauthAccessToken(hashes.access_hash)),
    del(keys.oauthRefreshToken(hashes.refresh_hash)),
  ];
}

/** Reads, then revokes under the guard; reads again when a refresh got in between (a few times at most). */
async function revokeWithRetry<T extends TokenHashes>(
  read: () => Promise<T | undefined>,
  target: (item: T) => { projectId: string; grantId: string },
): Promise<T | undefined> {
  for (let attempt = 1; ; attempt++) {
    const item = await read();
    if (!item) return undefined;
    const { projectId, grantId } = target(item);
    try {
      await transact(grantRemoval(projectId, grantId, item));
      return item;
    } catch (error) {
      if (!isConditionFailed(error, 'grant changed')) throw error;
      if (attempt === 3)
        throw conflict('grant_changed', 'The grant kept changing while it was being revoked; try again');
    }
  }
}

/** The grant as listed (model.ts says what Resend's fields hold here); `clientName` undefined: its client is gone. */
const toRecord = (item: GrantItem, clientName: string | undefined): OAuthGrantRecord => ({
  object: 'oauth_grant',
  id: item.id,
  client_id: item.client_id,
  scope: item.scope,
  scopes: [item.scope],
  created_at: item.created_at,
  expires_at: isoFromEpoch(item.expires_at),
  revoked_at: null,
  revoked_reason: null,
  client: clientName === undefined ? null : { name: clientName, logo_uri: null },
});

/**
 * The names of the clients with these public ids, from their lookup items: one BatchGet (a page
 * holds at most 100 grants, so at most 100 keys). A lookup written before it carried the name
 * sends us to its client item, a second BatchGet only then. A client missing from the answer was
 * just deleted (its grants are being revoked).
 */
async function clientNames(projectId: string, clientIds: string[]): Promise<Map<string, string>> {
  const names = new Map<string, string>();
  if (clientIds.length === 0) return names;
  const lookups = await batchGet<ClientLookup>([...new Set(clientIds)].map((clientId) => keys.oauthClientId(clientId)));
  const unnamed = lookups.filter((lookup) => lookup.project_id === projectId && lookup.name === undefined);
  for (const lookup of lookups)
    if (lookup.project_id === projectId && lookup.name !== undefined) names.set(lookup.client_id, lookup.name);
  if (unnamed.length > 0) {
    for (const client of await batchGet(unnamed.map((lookup) => keys.oauthClient(projectId, lookup.oauth_client_id))))
      names.set(client.client_id, client.name);
  }
  return names;
}

/** Grants whose refresh token expired are left out (the TTL deletes them up to days later). */
export async function listGrants(caller: Caller, page: PageRequest) {
  const live = {
    expression: '#expires > :now',
    names: { '#expires': 'expires_at' },
    values: { ':now': epochSeconds() },
  };
  const { items, hasMore } = await queryPage<GrantItem>(keys.oauthGrants(caller.projectId), page, live);
  const names = await clientNames(
    caller.projectId,
    items.map((item) => item.client_id),
  );
  return { records: items.map((item) => toRecord(item, names.get(item.client_id))), hasMore };
}

/** Revokes the grant with its current tokens; false when there is no live grant of that id. */
export async function revokeGrantById(projectId: string, grantId: string): Promise<boolean> {
  const revoked = await revokeWithRetry(
    async () => {
      const grant = await getItem<GrantItem>(keys.oauthGrant(projectId, grantId));
      return grant && grant.expires_at > epochSeconds() ? grant : undefined;
    },
    () => ({ projectId, grantId }),
  );
  return revoked !== undefined;
}

/**
 * DELETE /oauth/grants/{id}: both tokens stop working at once. An unknown or expired grant is 404.
 * The grant is deleted, not kept as revoked: `revoked_at` is in the answer only (Resend's shape).
 */
export async function revokeGrant(caller: Caller, grantId: string): Promise<RevokedGrantRecord> {
  if (!(await revokeGrantById(caller.projectId, grantId))) throw notFound('OAuth grant', 'grant_id');
  return { object: 'oauth_grant', id: grantId, deleted: true, revoked_at: nowIso(), revoked_reason: REVOKED_FROM_API };
}

/**
 * POST /oauth/revoke (RFC 7009): the grant of an access or refresh token (with the pair it holds
 * now), if the token was issued to `clientId`. Anything else (unknown, expired, revoked, another
 * client's) is a no-op. An already rotated refresh token revokes its grant too, as its reuse at
 * the token endpoint does.
 */
export async function revokeToken(token: string, clientId: string): Promise<void> {
  const key = ACCESS_TOKEN_PATTERN.test(token)
    ? keys.oauthAccessToken(hashToken(token))
    : REFRESH_TOKEN_PATTERN.test(token)
      ? keys.oauthRefreshToken(hashToken(token))
      : undefined;
  if (!key) return;
  const item = await getItem<TokenItem>(key);
  if (item?.client_id !== clientId) return;
  await revokeGrantById(item.project_id, item.grant_id);
}

/** Grants per transaction: three deletes each, under DynamoDB's 100 actions. */
const GRANTS_PER_TRANSACTION = 33;

/**
 * Revokes every grant of a client that was just deleted. No grant of it can change any more
 * (the token endpoint's transactions check the client's lookup item), so one read is exact
 * and the deletes need no guard. Each grant goes in one transaction with its tokens; more than
 * 33 grants take several transactions, and a failure between them leaves grants whose refresh
 * tokens already fail (no client) and whose access tokens expire within the hour.
 */
export async function revokeGrantsOfClient(projectId: string, clientId: string): Promise<void> {
  const ofClient = {
    expression: '#client = :client',
    names: { '#client': 'client_id' },
    values: { ':client': clientId },
  };
  const grants: GrantItem[] = [];
  let after: string | undefined;
  do {
    const page = await queryPage<GrantItem>(keys.oauthGrants(projectId), { limit: 100, after }, ofClient);
    grants.push(...page.items);
    after = page.hasMore ? page.items[page.items.length - 1].id : undefined;
  } while (after);
  for (let i = 0; i < grants.length; i += GRANTS_PER_TRANSACTION) {
    await transact(grants.slice(i, i + GRANTS_PER_TRANSACTION).flatMap((g) => grantRemoval(projectId, g.id, g, false)));
  }
}
