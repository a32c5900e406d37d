/**
 * OAuth clients: the third-party apps a project lets ask for access. Public clients (no
 * secret, PKCE instead), registered per project with their redirect URIs. Two items: the client
 * under its project, and a deployment-wide lookup keyed by the public `client_id` (with the
 * project, the redirect URIs and the name), because the token endpoint is called without a key and
 * so without a project, and the grants list names each grant's client by its `client_id`. Clients
 * cannot be edited, so the copies never go stale.
 *
 * Deleting a client first deletes both items (codes and refresh tokens of the client stop
 * working at once: the token endpoint checks the lookup item in its own transaction), then
 * revokes the client's grants (shared/access/oauth-grants.ts).
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { del, getItem, put, queryPage, transact, type PageRequest } from '../platform/db/table';
import { notFound } from '../platform/errors';
import { newId, nowIso } from '../platform/ids';
import { revokeGrantsOfClient } from './oauth-grants';
import type { ClientLookup, OAuthClientRecord } from './model';
import { newClientId } from './oauth-tokens';

const toRecord = (item: Record<string, unknown>): OAuthClientRecord => ({
  object: 'oauth_client',
  id: item.id as string,
  client_id: item.client_id as string,
  name: item.name as string,
  redirect_uris: item.redirect_uris as string[],
  created_at: item.created_at as string,
});

const missing = () => notFound('OAuth client', 'oauth_client_id');

export async function createClient(
  caller: Caller,
  input: { name: string; redirect_uris: string[] },
): Promise<OAuthClientRecord> {
  const record: OAuthClientRecord = {
    object: 'oauth_client',
    id: newId(),
    client_id: newClientId(),
    name: input.name,
    redirect_uris: [...new Set(input.redirect_uris)],
    created_at: nowIso(),
  };
  const lookup: ClientLookup = {
    project_id: caller.projectId,
    oauth_client_id: record.id,
    client_id: record.client_id,
    redirect_uris: record.redirect_uris,
    name: record.name,
  };
  await transact([
    put({
      ...keys.oauthClient(caller.projectId, record.id),
      type: 'oauth_client',
      project_id: caller.projectId,
      ...record,
    }),
    put(
      { ...keys.oauthClientId(record.client_id), type: 'oauth_client_id', ...lookup },
      { ifAbsent: () => new Error('client_id collision') },
    ),
  ]);
  return record;
}

export async function listClients(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage(keys.oauthClients(caller.projectId), page);
  return { records: items.map(toRecord), hasMore };
}

/** The client with this public id, in any project (callers check the project), or undefined. */
export async function findClient(clientId: string): Promise<ClientLookup | undefined> {
  return getItem<ClientLookup & Record<string, unknown>>(keys.oauthClientId(clientId));
}

export async function deleteClient(caller: Caller, id: string): Promise<void> {
  const item = await getItem(keys.oauthClient(caller.projectId, id));
  if (!item) throw missing();
  await transact([
    del(keys.oauthClient(caller.projectId, id), { ifExists: missing }), // a concurrent delete loses here
    del(keys.oauthClientId(item.client_id)),
  ]);
  await revokeGrantsOfClient(caller.projectId, item.client_id);
}
