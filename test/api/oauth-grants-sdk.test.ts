/**
 * OAuth grants in Resend's shape through the official SDK (`oauthGrants.list`: GET /oauth/grants;
 * `oauthGrants.revoke`: DELETE /oauth/grants/{id}): `scopes`, `revoked_at`, `revoked_reason` and
 * `client {name, logo_uri}` beside our own fields. The flow itself (authorize, token, refresh,
 * revocation): oauth.test.ts. Each test works in a project of its own.
 */
import { randomBytes } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { Resend } from 'resend';
import { s256Challenge } from '../../shared/access/oauth-tokens';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { api, baseUrl, request } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';

const runtime = useRuntimeTable();
const REDIRECT = 'https://app.example/callback';
const ISO = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

/** `data` of an SDK answer, failing the test with the SDK's error if there is one. */
function dataOf<T>(answer: { data: T | null; error: unknown }): T {
  expect(answer.error).toBeNull();
  return answer.data as T;
}

/** A client of the project (`name`), and one grant of it made through authorize and the token exchange. */
async function grantOf(key: string, name: string, scope: 'full_access' | 'sending_access') {
  const client = await api.post('/oauth/clients', { name, redirect_uris: [REDIRECT] }, { key });
  expect(client.status).toBe(201);
  const verifier = randomBytes(48).toString('base64url');
  const query = new URLSearchParams({
    client_id: client.body.client_id,
    redirect_uri: REDIRECT,
    code_challenge: s256Challenge(verifier),
    scope,
  });
  const code = await api.get(`/oauth/authorize?${query}`, { key });
  expect(code.status).toBe(200);
  const form = {
    grant_type: 'authorization_code',
    code: code.body.code,
    code_verifier: verifier,
    client_id: client.body.client_id,
    redirect_uri: REDIRECT,
  };
  const tokens = await request('POST', '/oauth/token', undefined, {
    key: null,
    raw: new URLSearchParams(form).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
  expect(tokens.status).toBe(200);
  return { client: client.body as { id: string; client_id: string }, access: tokens.body.access_token as string };
}

async function project() {
  const other = await createOtherProject();
  return { ...other, resend: new Resend(other.key, { baseUrl: baseUrl() }) };
}

it('oauthGrants.list: each grant with scopes, revoked_at/revoked_reason null and its client, beside our fields', async () => {
  const { key, resend } = await project();
  const first = await grantOf(key, 'Acme CLI', 'sending_access');
  const second = await grantOf(key, 'Acme Dashboard', 'full_access');

  const list = dataOf(await resend.oauthGrants.list());
  expect(list).toMatchObject({ object: 'list', has_more: false });
  expect(list.data).toEqual([
    {
      object: 'oauth_grant',
      id: expect.any(String),
      client_id: second.client.client_id,
      scope: 'full_access',
      scopes: ['full_access'],
      created_at: expect.stringMatching(ISO),
      expires_at: expect.stringMatching(ISO),
      revoked_at: null,
      revoked_reason: null,
      client: { name: 'Acme Dashboard', logo_uri: null },
    },
    expect.objectContaining({
      client_id: first.client.client_id,
      scopes: ['sending_access'],
      client: { name: 'Acme CLI', logo_uri: null },
    }),
  ]);
  // the SDK's pagination
  const page = dataOf(await resend.oauthGrants.list({ limit: 1 }));
  expect(page).toMatchObject({ has_more: true, data: [{ id: list.data[0].id }] });
  expect(dataOf(await resend.oauthGrants.list({ limit: 1, after: list.data[0].id })).data.map((g) => g.id)).toEqual([
    list.data[1].id,
  ]);
});

it('oauthGrants.revoke: answers revoked_at and revoked_reason, the tokens stop working, the grant is no longer listed, and a second revoke is 404', async () => {
  const { key, resend } = await project();
  const { access } = await grantOf(key, 'Acme', 'full_access');
  expect((await api.get('/segments', { key: access })).status).toBe(200);
  const [grant] = dataOf(await resend.oauthGrants.list()).data;

  const before = Date.now();
  const revoked = dataOf(await resend.oauthGrants.revoke(grant.id));
  expect(revoked).toEqual({
    object: 'oauth_grant',
    id: grant.id,
    deleted: true,
    revoked_at: expect.stringMatching(ISO),
    revoked_reason: 'revoked_from_api',
  });
  expect(Date.parse(revoked.revoked_at)).toBeGreaterThanOrEqual(before - 1000);
  expect((await api.get('/segments', { key: access })).status).toBe(401);
  expect(dataOf(await resend.oauthGrants.list()).data).toEqual([]);

  const again = await resend.oauthGrants.revoke(grant.id);
  expect(again).toMatchObject({ data: null, error: { name: 'not_found', statusCode: 404 } });
});

it("names the client of a grant whose lookup was written before it carried the name (from the client's own item)", async () => {
  const { key, resend } = await project();
  const { client } = await grantOf(key, 'Older client', 'full_access');
  await documentClient.send(
    new UpdateCommand({
      TableName: runtime.tableName,
      Key: keys.oauthClientId(client.client_id),
      UpdateExpression: 'REMOVE #name',
      ExpressionAttributeNames: { '#name': 'name' },
    }),
  );
  expect(dataOf(await resend.oauthGrants.list()).data[0].client).toEqual({ name: 'Older client', logo_uri: null });
});

it('answers client null for a grant whose client is gone while its grants are being revoked', async () => {
  const { key } = await project();
  const { client } = await grantOf(key, 'Going', 'full_access');
  // the moment between a client deletion's first transaction and the revocation of its grants
  await documentClient.send(
    new DeleteCommand({ TableName: runtime.tableName, Key: keys.oauthClientId(client.client_id) }),
  );
  const list = await api.get('/oauth/grants', { key });
  expect(list.status).toBe(200);
  expect(list.body.data).toEqual([expect.objectContaining({ client_id: client.client_id, client: null })]);
});
