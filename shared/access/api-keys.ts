/**
 * API keys (format and hashing: ./api-key-token.ts). Only the SHA-256 of a key is stored; the
 * plain key is returned once, at creation. A lookup item keyed by the hash points to
 * the project, so authenticating a request is one GetItem on an exact key. Revoking deletes both
 * items in one transaction, so the key stops working at once (no cache). OAuth access tokens
 * (shared/access/oauth.ts) are bearer keys too: `authenticate` tells them apart by their prefix.
 *
 * Decision (the contract is silent): a key created through the API has the caller's mode unless
 * a live key asks for `mode: "test"`; a test key can never mint a live one (422). The CLI
 * (bin/api-key.ts) chooses the mode explicitly.
 *
 * Test mode (./test-mode.ts): a test key works in its project's test twin. Its items live there
 * (so test keys list and revoke test keys only), and the caller it authenticates as has the twin's
 * id, whatever its hash item says (keys minted before the twin existed hold the live id).
 *
 * `last_used_at` is kept on the hash item only (which authenticating reads anyway): the one write
 * the request pipeline makes for a key is then in the key's own `API_KEY_HASH#` partition, so a
 * route that writes nothing of its own needs no write in the project's partition
 * (functions/routes.ts `routeNeeds`). Listing keys reads their hash items beside them; a key used
 * before this moved keeps its older time on the key item until its next use.
 */
import { API_KEY_PATTERN, generateToken, hashToken, type KeyMode } from './api-key-token';
import type { Caller, Permission } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  getItem,
  isConditionFailed,
  put,
  queryPage,
  transact,
  update,
  updateItem,
  type PageRequest,
} from '../platform/db/table';
import { conflict, notFound, unprocessable } from '../platform/errors';
import { eventWrite } from '../events/events';
import { newId, nowIso } from '../platform/ids';
import { now as clockNow } from '../platform/clock';
import type { ApiKeyRecord } from './model';
import { ACCESS_TOKEN_PATTERN, epochSeconds } from './oauth-tokens';
import { modeProjectId } from '../project/test-mode';

interface ApiKeyItem extends Omit<ApiKeyRecord, 'last_used_at'> {
  token_hash: string;
  last_used_at?: string;
}

interface ApiKeyHashItem {
  project_id: string;
  api_key_id: string;
  permission: Permission;
  livemode: boolean;
  /** the copy `authenticate` reads to decide whether the key's `last_used_at` is due a write */
  last_used_at?: string;
}

/** What an OAuth access token's item holds for authentication (shared/access/oauth.ts writes it). */
interface AccessTokenItem {
  project_id: string;
  grant_id: string;
  permission: Permission;
  livemode: boolean;
  /** epoch seconds; DynamoDB's TTL deletes the item up to days later, so the lookup checks it */
  expires_at: number;
}

/**
 * The caller a bearer token stands for, or undefined for a malformed, unknown, expired or
 * revoked token. An API key or an OAuth access token (`es_oat_`, its grant's scope as the
 * permission, and its grant, which keeps it away from credential management: shared/platform/http/operation.ts
 * `Scope`): either way one GetItem on the token's hash.
 */
export async function authenticate(token: string): Promise<Caller | undefined> {
  if (ACCESS_TOKEN_PATTERN.test(token)) {
    const item = await getItem<AccessTokenItem & Record<string, unknown>>(keys.oauthAccessToken(hashToken(token)));
    if (!item || item.expires_at <= epochSeconds()) return undefined;
    return {
      projectId: modeProjectId(item.project_id, item.livemode),
      permission: item.permission,
      livemode: item.livemode,
      grantId: item.grant_id,
    };
  }
  if (!API_KEY_PATTERN.test(token)) return undefined;
  const item = await getItem<ApiKeyHashItem & Record<string, unknown>>(keys.apiKeyHash(hashToken(token)));
  return item ? callerOfKey(item) : undefined;
}

const callerOfKey = (item: ApiKeyHashItem): Caller => ({
  projectId: modeProjectId(item.project_id, item.livemode),
  apiKeyId: item.api_key_id,
  permission: item.permission,
  livemode: item.livemode,
});

/** The key as the API shows it; `lastUsedAt`: from its hash item (the key item's own is from before that kept it). */
const toRecord = (item: ApiKeyItem, lastUsedAt?: string): ApiKeyRecord => ({
  object: 'api_key',
  id: item.id,
  name: item.name,
  permission: item.permission,
  mode: item.mode,
  created_at: item.created_at,
  last_used_at: lastUsedAt ?? item.last_used_at ?? null,
});

/** The keys as the API shows them, with `last_used_at` from their hash items (one BatchGetItem). */
async function withLastUse(items: ApiKeyItem[]): Promise<ApiKeyRecord[]> {
  const hashes = await batchGet<ApiKeyHashItem & { PK: string }>(items.map((item) => keys.apiKeyHash(item.token_hash)));
  const lastUse = new Map(hashes.map((hash): [string, string | undefined] => [hash.PK, hash.last_used_at]));
  return items.map((item) => toRecord(item, lastUse.get(keys.apiKeyHash(item.token_hash).PK)));
}

export interface CreateApiKeyInput {
  name: string;
  permission?: Permission;
  /** defaults to the caller's own mode */
  mode?: KeyMode;
  /** provision exactly this token (LOCAL_API_KEY); otherwise a new random one */
  token?: string;
}

export async function createApiKey(
  caller: Caller,
  input: CreateApiKeyInput,
): Promise<{ token: string; record: ApiKeyRecord }> {
  const mode = input.mode ?? (caller.livemode ? 'live' : 'test');
  if (mode === 'live' && !caller.livemode)
    throw unprocessable([
      { code: 'live_key_from_test_mode', message: 'A test-mode key cannot create live keys', path: 'mode' },
    ]);
  const owner = { projectId: modeProjectId(caller.projectId, mode === 'live'), livemode: mode === 'live' }; // a test key's items are the twin's
  const token = input.token ?? generateToken(mode);
  if (!API_KEY_PATTERN.test(token) || !token.startsWith(`es_${mode}_`))
    throw new Error(`not an ${mode} API key: es_${mode}_ + 32 base62`);
  const item: ApiKeyItem = {
    object: 'api_key',
    id: newId(),
    name: input.name,
    permission: input.permission ?? 'full_access',
    mode,
    created_at: nowIso(),
    token_hash: hashToken(token),
  };
  const record = toRecord(item);
  await transact([
    put({ ...keys.apiKey(owner.projectId, item.id), type: 'api_key', project_id: owner.projectId, ...item }),
    put(
      {
        ...keys.apiKeyHash(item.token_hash),
        type: 'api_key_hash',
        project_id: owner.projectId,
        api_key_id: item.id,
        permission: item.permission,
        livemode: mode === 'live',
      },
      { ifAbsent: () => conflict('api_key_exists', 'This API key is already provisioned') },
    ),
    eventWrite(owner, 'api_key.created', record),
  ]);
  return { token, record };
}

export async function listApiKeys(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage<ApiKeyItem>(keys.apiKeys(caller.projectId), page);
  return { records: await withLastUse(items), hasMore };
}

/** PATCH /api-keys/{id}: renames the key (nothing else of it changes). */
export async function renameApiKey(caller: Caller, apiKeyId: string, name: string): Promise<ApiKeyRecord> {
  const item = await updateItem<ApiKeyItem>(
    update(
      keys.apiKey(caller.projectId, apiKeyId),
      { set: { name }, condition: { expression: 'attribute_exists(PK)' } },
      () => notFound('API key', 'api_key_id'),
    ),
  );
  return (await withLastUse([item]))[0];
}

/** `last_used_at` is written at most once an hour per key. */
const LAST_USED_EVERY_MS = 60 * 60 * 1000;

/**
 * Records that the key authenticated a request now, when its last record is an hour old: on its
 * hash item (which `authenticate` reads anyway, and GET /api-keys shows), with a condition, so
 * requests racing write it once. Not awaited by the request: the pipeline waits for it only after
 * the handler (shared/platform/http/pipeline.ts `Authentication.alongside`).
 */
async function markUsed(hash: string, now = clockNow()): Promise<void> {
  const at = new Date(now).toISOString();
  const due = {
    expression: 'attribute_exists(PK) AND (attribute_not_exists(last_used_at) OR last_used_at < :due)',
    values: { ':due': new Date(now - LAST_USED_EVERY_MS).toISOString() },
  };
  try {
    await updateItem(
      update(keys.apiKeyHash(hash), { set: { last_used_at: at }, condition: due }, { tag: 'used already' }),
    );
  } catch (error) {
    if (!isConditionFailed(error, 'used already')) throw error; // another request wrote it, or the key was revoked
  }
}

/** `authenticate`, with the `last_used_at` write it calls for (undefined when none is due). */
export async function authenticateKey(
  token: string,
): Promise<{ caller: Caller | undefined; alongside?: Promise<void> }> {
  if (ACCESS_TOKEN_PATTERN.test(token) || !API_KEY_PATTERN.test(token)) return { caller: await authenticate(token) };
  const hash = hashToken(token);
  const item = await getItem<ApiKeyHashItem & Record<string, unknown>>(keys.apiKeyHash(hash));
  if (!item) return { caller: undefined };
  const due = !item.last_used_at || Date.parse(item.last_used_at) < clockNow() - LAST_USED_EVERY_MS;
  return { caller: callerOfKey(item), alongside: due ? markUsed(hash) : undefined };
}

export async function revokeApiKey(caller: Caller, apiKeyId: string): Promise<ApiKeyRecord> {
  const missing = () => notFound('API key', 'api_key_id');
  const item = await getItem<ApiKeyItem>(keys.apiKey(caller.projectId, apiKeyId));
  if (!item) throw missing();
  const record = toRecord(item);
  await transact([
    del(keys.apiKey(caller.projectId, apiKeyId), { ifExists: missing }), // a concurrent revoke loses here
    del(keys.apiKeyHash(item.token_hash)),
    eventWrite(caller, 'api_key.revoked', record),
  ]);
  return record;
}
