/** OAuth over HTTP: clients, authorize, the token exchange with PKCE, refresh, revocation, grants, metadata. */
import { randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { hashToken } from '../../shared/access/api-key-token';
import { documentClient } from '../../shared/platform/db/client';
import * as keys from '../../shared/platform/db/keys';
import { getItem } from '../../shared/platform/db/table';
import { s256Challenge } from '../../shared/access/oauth-tokens';
import { api, baseUrl, request, type ApiResponse } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';

const runtime = useRuntimeTable();

const REDIRECT = 'https://app.example/callback';
const LOOPBACK = 'http://127.0.0.1/callback';

const newVerifier = () => randomBytes(48).toString('base64url'); // 64 characters

/** POST a form-encoded body without a key, as an OAuth client does. */
const postForm = (path: string, fields: Record<string, string>) =>
  request('POST', path, undefined, {
    key: null,
    raw: new URLSearchParams(fields).toString(),
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
  });
const postJson = (path: string, body: unknown) => api.post(path, body, { key: null });

async function registerClient(options: { key?: string; redirect_uris?: string[] } = {}) {
  const res = await api.post(
    '/oauth/clients',
    { name: 'Acme', redirect_uris: options.redirect_uris ?? [REDIRECT, LOOPBACK] },
    { key: options.key },
  );
  expect(res.status).toBe(201);
  return res.body as { id: string; client_id: string };
}

const authorizeUrl = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(params)}`;

/** Authorizes and returns the code with the verifier that goes with it. */
async function authorize(clientId: string, options: { scope?: string; redirect_uri?: string; key?: string } = {}) {
  const verifier = newVerifier();
  const params: Record<string, string> = {
    client_id: clientId,
    redirect_uri: options.redirect_uri ?? REDIRECT,
    code_challenge: s256Challenge(verifier),
  };
  if (options.scope) params.scope = options.scope;
  const res = await api.get(authorizeUrl(params), { key: options.key });
  expect(res.status).toBe(200);
  return { code: res.body.code as string, verifier, body: res.body };
}

const exchange = (clientId: string, code: string, verifier: string, redirectUri = REDIRECT) =>
  postForm('/oauth/token', {
    grant_type: 'authorization_code',
    code,
    code_verifier: verifier,
    client_id: clientId,
    redirect_uri: redirectUri,
  });

/** A client, a grant and its tokens. */
async function tokensFor(scope = 'full_access', key?: string) {
  const client = await registerClient({ key });
  const { code, verifier } = await authorize(client.client_id, { scope, key });
  const res = await exchange(client.client_id, code, verifier);
  expect(res.status).toBe(200);
  return { client, access: res.body.access_token as string, refresh: res.body.refresh_token as string };
}

const expectOAuthError = (res: ApiResponse, error: string, status = 400) => {
  expect({ status: res.status, body: res.body }).toEqual({
    status,
    body: { error, error_description: expect.any(String) },
  });
};
const expect422 = (res: ApiResponse, path: string) => {
  expect(res.status).toBe(422);
  expect(res.body.name).toBe('validation_error');
  expect(res.body.errors.map((e: { path: string }) => e.path)).toContain(path);
};

describe('the authorization code flow (acceptance)', () => {
  it('registers a client, authorizes, exchanges the code with the verifier, and the token reads segments', async () => {
    const client = await registerClient();
    expect(client).toEqual({
      object: 'oauth_client',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      client_id: expect.stringMatching(/^es_client_[0-9A-Za-z]{24}$/),
      name: 'Acme',
      redirect_uris: [REDIRECT, LOOPBACK],
      created_at: expect.any(String),
    });

    const { code, verifier, body } = await authorize(client.client_id, { scope: 'full_access' });
    expect(body).toEqual({
      object: 'authorization_code',
      code: expect.stringMatching(/^es_code_[0-9A-Za-z]{40}$/),
      client_id: client.client_id,
      redirect_uri: REDIRECT,
      scope: 'full_access',
      state: null,
      expires_at: expect.any(String),
    });
    const ttl = Date.parse(body.expires_at) - Date.now();
    expect(ttl).toBeGreaterThan(9 * 60_000);
    expect(ttl).toBeLessThanOrEqual(10 * 60_000);

    const res = await exchange(client.client_id, code, verifier);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      access_token: expect.stringMatching(/^es_oat_[0-9A-Za-z]{40}$/),
      token_type: 'Bearer',
      expires_in: 3600,
      refresh_token: expect.stringMatching(/^es_ort_[0-9A-Za-z]{48}$/),
      scope: 'full_access',
    });
    expect(res.headers.get('cache-control')).toBe('no-store');

    const segments = await api.get('/segments', { key: res.body.access_token });
    expect(segments).toMatchObject({ status: 200, body: { object: 'list' } });

    expectOAuthError(await exchange(client.client_id, code, verifier), 'invalid_grant');
  });

  it('refuses a wrong verifier with invalid_grant', async () => {
    const client = await registerClient();
    const { code } = await authorize(client.client_id);
    expectOAuthError(await exchange(client.client_id, code, newVerifier()), 'invalid_grant');
  });

  it('gives a sending_access token (the default scope) 403 outside sending, reading emails included', async () => {
    const client = await registerClient();
    const { code, verifier, body } = await authorize(client.client_id);
    expect(body.scope).toBe('sending_access');
    const { body: tokens } = await exchange(client.client_id, code, verifier);
    expect(tokens.scope).toBe('sending_access');
    const denied = await api.post('/segments', { name: 'nope' }, { key: tokens.access_token });
    expect(denied.status).toBe(403);
    expect(denied.body).toMatchObject({ name: 'application_error', errors: [{ code: 'insufficient_scope' }] });
    expect((await api.get('/emails', { key: tokens.access_token })).status).toBe(403);
    expect((await api.post('/emails', {}, { key: tokens.access_token })).status).toBe(422); // past the scope check
    // nor can it authorize clients itself
    const again = await api.get(
      authorizeUrl({
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: s256Challenge(newVerifier()),
      }),
      { key: tokens.access_token },
    );
    expect(again.status).toBe(403);
  });

  it('accepts JSON as well as forms, and returns state unchanged', async () => {
    const client = await registerClient();
    const verifier = newVerifier();
    const auth = await api.get(
      authorizeUrl({
        client_id: client.client_id,
        redirect_uri: REDIRECT,
        code_challenge: s256Challenge(verifier),
        state: 'xyz 123',
        code_challenge_method: 'S256',
        response_type: 'code',
      }),
    );
    expect(auth.body).toMatchObject({ state: 'xyz 123' });
    const res = await postJson('/oauth/token', {
      grant_type: 'authorization_code',
      code: auth.body.code,
      code_verifier: verifier,
      client_id: client.client_id,
      redirect_uri: REDIRECT,
    });
    expect(res.status).toBe(200);
  });

  it('stores tokens only as hashes, with the mode of the key that authorized them', async () => {
    const { createApiKey } = await import('../../shared/access/api-keys');
    // a project of its own: the default project's test-mode sandbox is the mode isolation suite's B
    const { projectId } = await createOtherProject();
    const { token: testKey } = await createApiKey(
      { projectId, livemode: false, permission: 'full_access' },
      { name: 'oauth test', mode: 'test' },
    );
    const { access, refresh } = await tokensFor('full_access', testKey);
    const item = await getItem(keys.oauthAccessToken(hashToken(access)));
    expect(item).toMatchObject({ project_id: `${projectId}_test`, permission: 'full_access', livemode: false }); // the project's test-mode sandbox
    expect(JSON.stringify(item)).not.toContain(access);
    expect(JSON.stringify(item)).not.toContain(refresh);
    // it acts in test mode (authenticate reads `livemode` from the item), and mints no key of either mode
    expect((await api.post('/api-keys', { name: 'via oauth' }, { key: access })).status).toBe(403);
  });
});

describe('GET /oauth/authorize refuses each invalid parameter with 422 naming it', () => {
  let client: { id: string; client_id: string };
  const challenge = s256Challenge(newVerifier());
  const valid = () => ({ client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: challenge });
  beforeAll(async () => {
    client = await registerClient();
  });

  it('names every missing required parameter', async () => {
    const res = await api.get('/oauth/authorize');
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'client_id',
      'code_challenge',
      'redirect_uri',
    ]);
  });

  it('refuses an unknown client_id, well-formed or not', async () => {
    expect422(await api.get(authorizeUrl({ ...valid(), client_id: `es_client_${'A'.repeat(24)}` })), 'client_id');
    expect422(await api.get(authorizeUrl({ ...valid(), client_id: 'nonsense' })), 'client_id');
  });

  it("refuses another project's client as unknown", async () => {
    const other = await createOtherProject();
    const theirs = await registerClient({ key: other.key });
    const res = await api.get(authorizeUrl({ ...valid(), client_id: theirs.client_id }));
    expect422(res, 'client_id');
    expect(res.body.errors[0].code).toBe('unknown_client');
  });

  it('refuses a redirect_uri the client did not register, compared exactly', async () => {
    for (const uri of [
      'https://evil.example/callback',
      `${REDIRECT}/`,
      `${REDIRECT}?x=1`,
      'https://app.example:443/callback',
      'https://APP.example/callback',
    ]) {
      const res = await api.get(authorizeUrl({ ...valid(), redirect_uri: uri }));
      expect422(res, 'redirect_uri');
      expect(res.body.errors[0].code).toBe('redirect_uri_mismatch');
    }
  });

  it('accepts a loopback redirect_uri on any port, and nothing else different about it', async () => {
    const ok = await api.get(authorizeUrl({ ...valid(), redirect_uri: 'http://127.0.0.1:53123/callback' }));
    expect(ok.status).toBe(200);
    expect(ok.body.redirect_uri).toBe('http://127.0.0.1:53123/callback');
    expect422(
      await api.get(authorizeUrl({ ...valid(), redirect_uri: 'http://127.0.0.1:53123/other' })),
      'redirect_uri',
    );
    expect422(
      await api.get(authorizeUrl({ ...valid(), redirect_uri: 'http://localhost:53123/callback' })),
      'redirect_uri',
    );
    expect422(
      await api.get(authorizeUrl({ ...valid(), redirect_uri: 'https://127.0.0.1:53123/callback' })),
      'redirect_uri',
    );
  });

  it('holds a loopback redirect_uri registered with a port to that port, compared as a number', async () => {
    const pinned = await registerClient({ redirect_uris: ['http://127.0.0.1:8080/callback'] });
    const at = (redirect_uri: string) =>
      api.get(authorizeUrl({ ...valid(), client_id: pinned.client_id, redirect_uri }));
    expect((await at('http://127.0.0.1:08080/callback')).status).toBe(200);
    expect422(await at('http://127.0.0.1:9000/callback'), 'redirect_uri');
    expect422(await at('http://127.0.0.1/callback'), 'redirect_uri');
    expect422(await api.get(authorizeUrl({ ...valid(), redirect_uri: 'http://127.0.0.1:0/callback' })), 'redirect_uri');
  });

  it('refuses a code_challenge that is short, long or not base64url', async () => {
    for (const bad of [
      'a'.repeat(42),
      'a'.repeat(129),
      `${'a'.repeat(42)}+`,
      `${'a'.repeat(42)}=`,
      `${'a'.repeat(42)}/`,
    ]) {
      expect422(await api.get(authorizeUrl({ ...valid(), code_challenge: bad })), 'code_challenge');
    }
    expect((await api.get(authorizeUrl({ ...valid(), code_challenge: 'a'.repeat(128) }))).status).toBe(200);
  });

  it('refuses an unknown scope, a method other than S256 and a response_type other than code', async () => {
    expect422(await api.get(authorizeUrl({ ...valid(), scope: 'admin' })), 'scope');
    expect422(await api.get(authorizeUrl({ ...valid(), code_challenge_method: 'plain' })), 'code_challenge_method');
    expect422(await api.get(authorizeUrl({ ...valid(), response_type: 'token' })), 'response_type');
  });

  it('ignores parameters it does not know (RFC 6749 §3.1) and never redirects', async () => {
    const res = await api.get(authorizeUrl({ ...valid(), nonce: 'n', prompt: 'consent' }));
    expect(res.status).toBe(200);
    expect(res.headers.get('location')).toBeNull();
  });

  it('needs a full_access key of the project', async () => {
    expect((await api.get(authorizeUrl(valid()), { key: null })).status).toBe(401);
    const { body } = await api.post('/api-keys', { name: 'sender', permission: 'sending_access' });
    const res = await api.get(authorizeUrl(valid()), { key: body.token });
    expect(res.status).toBe(403);
    expect(res.body.errors[0].code).toBe('insufficient_scope');
  });
});

describe('POST /oauth/token refuses each invalid request in RFC 6749 form', () => {
  let client: { id: string; client_id: string };
  beforeAll(async () => {
    client = await registerClient();
  });

  it('answers invalid_request for each missing parameter', async () => {
    const { code, verifier } = await authorize(client.client_id);
    const full = {
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: client.client_id,
      redirect_uri: REDIRECT,
    };
    for (const field of ['code', 'code_verifier', 'client_id', 'redirect_uri', 'grant_type'] as const) {
      const { [field]: _, ...rest } = full;
      const res = await postForm('/oauth/token', rest);
      expectOAuthError(res, 'invalid_request');
      expect(res.body.error_description).toContain(field);
    }
    expectOAuthError(
      await postForm('/oauth/token', { grant_type: 'refresh_token', client_id: client.client_id }),
      'invalid_request',
    );
    expectOAuthError(await request('POST', '/oauth/token', undefined, { key: null }), 'invalid_request');
    // the code was not spent by the refused requests
    expect((await exchange(client.client_id, code, verifier)).status).toBe(200);
  });

  it('answers unsupported_grant_type for a grant type it does not support', async () => {
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'password',
        client_id: client.client_id,
        username: 'a',
        password: 'b',
      }),
      'unsupported_grant_type',
    );
    expectOAuthError(
      await postForm('/oauth/token', { grant_type: 'client_credentials', client_id: client.client_id }),
      'unsupported_grant_type',
    );
  });

  it('answers invalid_request for a body it cannot read, a repeated parameter or a malformed verifier', async () => {
    expectOAuthError(
      await request('POST', '/oauth/token', undefined, {
        key: null,
        raw: '{"grant_type":',
        headers: { 'content-type': 'application/json' },
      }),
      'invalid_request',
    );
    expectOAuthError(
      await request('POST', '/oauth/token', undefined, {
        key: null,
        raw: 'grant_type=x',
        headers: { 'content-type': 'text/plain' },
      }),
      'invalid_request',
    );
    const { code, verifier } = await authorize(client.client_id);
    const repeated = `grant_type=authorization_code&code=${code}&code=${code}&code_verifier=${verifier}&client_id=${client.client_id}&redirect_uri=${encodeURIComponent(REDIRECT)}`;
    expectOAuthError(
      await request('POST', '/oauth/token', undefined, {
        key: null,
        raw: repeated,
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
      }),
      'invalid_request',
    );
    expectOAuthError(await exchange(client.client_id, code, 'short'), 'invalid_request');
  });

  it('answers invalid_client (401) for an unknown client_id', async () => {
    const { code, verifier } = await authorize(client.client_id);
    expectOAuthError(await exchange(`es_client_${'B'.repeat(24)}`, code, verifier), 'invalid_client', 401);
    expectOAuthError(await exchange('whatever', code, verifier), 'invalid_client', 401);
  });

  it('answers invalid_grant for a code of another client or another redirect URI', async () => {
    const second = await registerClient();
    const { code, verifier } = await authorize(client.client_id);
    expectOAuthError(await exchange(second.client_id, code, verifier), 'invalid_grant');
    expectOAuthError(await exchange(client.client_id, code, verifier, LOOPBACK), 'invalid_grant');
    expectOAuthError(await exchange(client.client_id, 'es_code_unknown', verifier), 'invalid_grant');
    expect((await exchange(client.client_id, code, verifier)).status).toBe(200);
  });

  it('binds a loopback code to the exact port it was authorized with', async () => {
    const { code, verifier } = await authorize(client.client_id, { redirect_uri: 'http://127.0.0.1:8123/callback' });
    expectOAuthError(
      await exchange(client.client_id, code, verifier, 'http://127.0.0.1:9000/callback'),
      'invalid_grant',
    );
    expect((await exchange(client.client_id, code, verifier, 'http://127.0.0.1:8123/callback')).status).toBe(200);
  });

  it('answers invalid_grant for a code past its 10 minutes', async () => {
    const { code, verifier } = await authorize(client.client_id);
    await documentClient.send(
      new UpdateCommand({
        TableName: runtime.tableName,
        Key: keys.oauthCode(hashToken(code)),
        UpdateExpression: 'SET expires_at = :past',
        ExpressionAttributeValues: { ':past': Math.floor(Date.now() / 1000) - 1 },
      }),
    );
    expectOAuthError(await exchange(client.client_id, code, verifier), 'invalid_grant');
  });

  it('spends a code once even when two exchanges race', async () => {
    const { code, verifier } = await authorize(client.client_id);
    const results = await Promise.all([1, 2, 3].map(() => exchange(client.client_id, code, verifier)));
    expect(results.map((r) => r.status).sort()).toEqual([200, 400, 400]);
  });

  it('never answers 500, whatever the body: 400 invalid_request for a body the schema refuses, 401 invalid_client for one it takes', async () => {
    // [content type, body, status, error]. The token endpoint answers RFC 6749's form (shared/platform/http/pipeline.ts
    // oauthErrorReply): 400 invalid_request for what the request schema refuses (not an object, a field of the wrong type
    // or length, a form without grant_type); a body the schema takes reaches the client lookup, and a client_id that is
    // no client's id (not even of its pattern) is 401 invalid_client (shared/access/oauth.ts unknownClient).
    const bodies: Array<[string, string, number, string]> = [
      ['application/json', '[]', 400, 'invalid_request'],
      ['application/json', 'null', 400, 'invalid_request'],
      ['application/json', '"x"', 400, 'invalid_request'],
      ['application/json', '{"grant_type":["authorization_code"],"client_id":{}}', 400, 'invalid_request'],
      // a code over 256 characters, a client_id over 128
      [
        'application/json',
        JSON.stringify({
          grant_type: 'authorization_code',
          code: 'x'.repeat(300),
          code_verifier: 'v'.repeat(43),
          client_id: 'c'.repeat(200),
          redirect_uri: 'r',
        }),
        400,
        'invalid_request',
      ],
      // strings of allowed lengths: the schema takes them, and no client has such an id
      [
        'application/json',
        JSON.stringify({ grant_type: 'refresh_token', refresh_token: '\u0000\uffff', client_id: '\u{1F600}' }),
        401,
        'invalid_client',
      ],
      [
        'application/json',
        '{"grant_type":"authorization_code","code":"\\ud800","code_verifier":"' +
          'v'.repeat(43) +
          '","client_id":"\\ud800","redirect_uri":"\\udfff"}',
        401,
        'invalid_client',
      ],
      ['application/x-www-form-urlencoded', '%%%&&&===', 400, 'invalid_request'], // no grant_type
      [
        'application/x-www-form-urlencoded',
        '__proto__=x&constructor=y&grant_type=refresh_token&refresh_token=es_ort_x&client_id=z',
        401,
        'invalid_client',
      ],
      [
        'application/x-www-form-urlencoded',
        'grant_type=authorization_code&code=&code_verifier=&client_id=&redirect_uri=',
        400,
        'invalid_request',
      ], // empty fields
    ];
    for (const [type, raw, status, error] of bodies) {
      const res = await request('POST', '/oauth/token', undefined, {
        key: null,
        raw,
        headers: { 'content-type': type },
      });
      expect({ raw, status: res.status, body: res.body }).toEqual({
        raw,
        status,
        body: { error, error_description: expect.any(String) },
      });
    }
  });
});

describe('refresh tokens', () => {
  it('rotate: the new pair works, the old refresh token and the old access token stop working', async () => {
    const { client, access, refresh } = await tokensFor();
    const res = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: client.client_id,
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ token_type: 'Bearer', expires_in: 3600, scope: 'full_access' });
    expect(res.body.refresh_token).not.toBe(refresh);
    expect((await api.get('/segments', { key: res.body.access_token })).status).toBe(200);
    expect((await api.get('/segments', { key: access })).status).toBe(401);
    const next = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: res.body.refresh_token,
      client_id: client.client_id,
    });
    expect(next.status).toBe(200);
    expect((await api.get('/segments', { key: next.body.access_token })).status).toBe(200);
  });

  it('revoke the whole grant when a rotated refresh token comes back (RFC 9700 reuse detection)', async () => {
    const { client, refresh } = await tokensFor();
    // the legitimate client rotates; an attacker then replays the stolen, already rotated token
    const current = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: client.client_id,
    });
    expect(current.status).toBe(200);
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: client.client_id,
      }),
      'invalid_grant',
    );
    // the legitimate holder's current pair is gone with the grant
    expect((await api.get('/segments', { key: current.body.access_token })).status).toBe(401);
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: current.body.refresh_token,
        client_id: client.client_id,
      }),
      'invalid_grant',
    );
    const grants = await api.get('/oauth/grants?limit=100');
    expect(grants.body.data.map((g: { client_id: string }) => g.client_id)).not.toContain(client.client_id);
  });

  it('revoke the grant when one refresh token is presented twice at once: one answer at most gets tokens, and they die with the grant', async () => {
    const { client, refresh } = await tokensFor();
    const both = await Promise.all(
      [1, 2].map(() =>
        postForm('/oauth/token', { grant_type: 'refresh_token', refresh_token: refresh, client_id: client.client_id }),
      ),
    );
    expect(both.filter((r) => r.status === 200).length).toBeLessThanOrEqual(1);
    for (const r of both.filter((r) => r.status !== 200)) expectOAuthError(r, 'invalid_grant');
    for (const r of both.filter((r) => r.status === 200))
      expect((await api.get('/segments', { key: r.body.access_token })).status).toBe(401);
  });

  it('revoke the grant when a rotated refresh token is sent to POST /oauth/revoke', async () => {
    const { client, refresh } = await tokensFor();
    const current = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: refresh,
      client_id: client.client_id,
    });
    expect((await postForm('/oauth/revoke', { token: refresh, client_id: client.client_id })).status).toBe(200);
    expect((await api.get('/segments', { key: current.body.access_token })).status).toBe(401);
  });

  it('may narrow the scope of the new access token, never widen it', async () => {
    const full = await tokensFor('full_access');
    const narrowed = await postForm('/oauth/token', {
      grant_type: 'refresh_token',
      refresh_token: full.refresh,
      client_id: full.client.client_id,
      scope: 'sending_access',
    });
    expect(narrowed.body.scope).toBe('sending_access');
    expect((await api.post('/segments', { name: 'x' }, { key: narrowed.body.access_token })).status).toBe(403);

    const sending = await tokensFor('sending_access');
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: sending.refresh,
        client_id: sending.client.client_id,
        scope: 'full_access',
      }),
      'invalid_scope',
    );
  });

  it('works only for the client it was issued to', async () => {
    const { refresh } = await tokensFor();
    const other = await registerClient();
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: other.client_id,
      }),
      'invalid_grant',
    );
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: `es_ort_${'x'.repeat(48)}`,
        client_id: other.client_id,
      }),
      'invalid_grant',
    );
  });
});

describe('revocation', () => {
  it('POST /oauth/revoke with the access token revokes the grant: both tokens stop working', async () => {
    const { client, access, refresh } = await tokensFor();
    const res = await postForm('/oauth/revoke', {
      token: access,
      client_id: client.client_id,
      token_type_hint: 'access_token',
    });
    expect(res).toMatchObject({ status: 200, body: {} });
    expect((await api.get('/segments', { key: access })).status).toBe(401);
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: client.client_id,
      }),
      'invalid_grant',
    );
  });

  it('POST /oauth/revoke with the refresh token (JSON) does the same', async () => {
    const { client, access, refresh } = await tokensFor();
    expect((await postJson('/oauth/revoke', { token: refresh, client_id: client.client_id })).status).toBe(200);
    expect((await api.get('/segments', { key: access })).status).toBe(401);
  });

  it('answers 200 for unknown tokens and tokens of another client, and revokes nothing then', async () => {
    const { access } = await tokensFor();
    const other = await registerClient();
    expect((await postForm('/oauth/revoke', { token: access, client_id: other.client_id })).status).toBe(200);
    expect((await api.get('/segments', { key: access })).status).toBe(200);
    expect((await postForm('/oauth/revoke', { token: 'not-a-token', client_id: other.client_id })).status).toBe(200);
    expectOAuthError(await postForm('/oauth/revoke', { client_id: other.client_id }), 'invalid_request');
    expectOAuthError(await postForm('/oauth/revoke', { token: access }), 'invalid_request');
  });
});

describe('what a grant may do', () => {
  it('cannot mint credentials: no API key, OAuth client or authorization code with a full_access token (403)', async () => {
    const { client, access } = await tokensFor('full_access');
    const key = { key: access };
    const attempts = {
      apiKey: await api.post('/api-keys', { name: 'minted by a grant' }, key),
      client: await api.post('/oauth/clients', { name: 'minted by a grant', redirect_uris: [REDIRECT] }, key),
      code: await api.get(
        authorizeUrl({
          client_id: client.client_id,
          redirect_uri: REDIRECT,
          code_challenge: s256Challenge(newVerifier()),
          scope: 'full_access',
        }),
        key,
      ),
      keys: await api.get('/api-keys', key),
      grants: await api.get('/oauth/grants', key),
    };
    for (const res of Object.values(attempts)) {
      expect({ status: res.status, body: res.body }).toEqual({
        status: 403,
        body: {
          name: 'application_error',
          statusCode: 403,
          message: expect.stringMatching(/OAuth access tokens/),
          errors: [expect.objectContaining({ code: 'insufficient_scope' })],
        },
      });
    }
    // and everything else of full_access still works with it
    expect((await api.post('/segments', { name: 'made by a grant' }, key)).status).toBe(201);
  });

  it('revoking the grant leaves nothing it made working', async () => {
    const { client, access, refresh } = await tokensFor('full_access');
    const grant = (await api.get('/oauth/grants?limit=100')).body.data.find(
      (g: { client_id: string }) => g.client_id === client.client_id,
    );
    const name = `minted by grant ${grant.id}`;
    expect((await api.post('/api-keys', { name }, { key: access })).status).toBe(403);
    expect((await api.post('/oauth/clients', { name, redirect_uris: [REDIRECT] }, { key: access })).status).toBe(403);
    expect((await api.get('/api-keys?limit=100')).text).not.toContain(name);
    expect((await api.get('/oauth/clients?limit=100')).text).not.toContain(name);
    expect((await api.delete(`/oauth/grants/${grant.id}`)).status).toBe(200);
    expect((await api.get('/segments', { key: access })).status).toBe(401);
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: client.client_id,
      }),
      'invalid_grant',
    );
  });
});

describe('grants', () => {
  it('lists the grant and DELETE revokes it at once; a second DELETE is 404', async () => {
    const { client, access, refresh } = await tokensFor('sending_access');
    const list = await api.get('/oauth/grants?limit=100');
    expect(list.status).toBe(200);
    const grant = list.body.data.find((g: { client_id: string }) => g.client_id === client.client_id);
    expect(grant).toEqual({
      object: 'oauth_grant',
      id: expect.any(String),
      client_id: client.client_id,
      scope: 'sending_access',
      created_at: expect.any(String),
      expires_at: expect.any(String),
      // Resend's fields beside ours (the SDK's oauthGrants: oauth-grants-sdk.test.ts)
      scopes: ['sending_access'],
      revoked_at: null,
      revoked_reason: null,
      client: { name: 'Acme', logo_uri: null },
    });
    expect(Date.parse(grant.expires_at) - Date.now()).toBeGreaterThan(29 * 24 * 3600_000);
    expect(list.text).not.toContain(access);

    expect(await api.delete(`/oauth/grants/${grant.id}`)).toMatchObject({
      status: 200,
      body: { object: 'oauth_grant', id: grant.id, deleted: true, revoked_reason: 'revoked_from_api' },
    });
    expect((await api.get('/emails', { key: access })).status).toBe(401);
    expectOAuthError(
      await postForm('/oauth/token', {
        grant_type: 'refresh_token',
        refresh_token: refresh,
        client_id: client.client_id,
      }),
      'invalid_grant',
    );
    expect((await api.delete(`/oauth/grants/${grant.id}`)).status).toBe(404);
  });

  it("cannot see or revoke another project's grant (404)", async () => {
    const other = await createOtherProject();
    const { access } = await tokensFor('full_access', other.key);
    const theirs = await api.get('/oauth/grants', { key: other.key });
    expect(theirs.body.data).toHaveLength(1);
    expect((await api.delete(`/oauth/grants/${theirs.body.data[0].id}`)).status).toBe(404);
    expect((await api.get('/segments', { key: access })).status).toBe(200);
    const mine = await api.get('/oauth/grants?limit=100');
    expect(mine.body.data.map((g: { id: string }) => g.id)).not.toContain(theirs.body.data[0].id);
  });
});

describe('clients', () => {
  it('lists clients and deleting one revokes its grants and its codes', async () => {
    const { client, access } = await tokensFor();
    const { code, verifier } = await authorize(client.client_id);
    const list = await api.get('/oauth/clients?limit=100');
    expect(list.body.data.map((c: { id: string }) => c.id)).toContain(client.id);

    expect(await api.delete(`/oauth/clients/${client.id}`)).toMatchObject({
      status: 200,
      body: { object: 'oauth_client', id: client.id, deleted: true },
    });
    expect((await api.get('/segments', { key: access })).status).toBe(401);
    expectOAuthError(await exchange(client.client_id, code, verifier), 'invalid_client', 401);
    expect422(
      await api.get(
        authorizeUrl({ client_id: client.client_id, redirect_uri: REDIRECT, code_challenge: s256Challenge(verifier) }),
      ),
      'client_id',
    );
    const grants = await api.get('/oauth/grants?limit=100');
    expect(grants.body.data.map((g: { client_id: string }) => g.client_id)).not.toContain(client.client_id);
    expect((await api.delete(`/oauth/clients/${client.id}`)).status).toBe(404);
  });

  it("cannot delete another project's client (404)", async () => {
    const other = await createOtherProject();
    const theirs = await registerClient({ key: other.key });
    expect((await api.delete(`/oauth/clients/${theirs.id}`)).status).toBe(404);
  });

  it('refuses redirect URIs that are not https or loopback http, or that carry a fragment', async () => {
    const bad = [
      'http://app.example/cb',
      'com.example.app:/cb',
      'https://app.example/cb#frag',
      '/relative',
      'https://user:pw@app.example/cb',
      'javascript:alert(1)',
    ];
    const res = await api.post('/oauth/clients', { name: 'Bad', redirect_uris: ['https://ok.example/cb', ...bad] });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      bad.map((_, i) => `redirect_uris.${i + 1}`).sort(),
    );
    expect422(await api.post('/oauth/clients', { name: 'None', redirect_uris: [] }), 'redirect_uris');
    expect422(
      await api.post('/oauth/clients', {
        name: 'Many',
        redirect_uris: Array.from({ length: 11 }, (_, i) => `https://a.example/${i}`),
      }),
      'redirect_uris',
    );
    expect422(await api.post('/oauth/clients', { redirect_uris: [REDIRECT] }), 'name');
    const ok = await api.post('/oauth/clients', {
      name: 'Loopbacks',
      redirect_uris: ['http://[::1]:8080/cb', 'http://localhost/cb', 'http://127.0.0.1:1/cb'],
    });
    expect(ok.status).toBe(201);
  });

  it('refuses redirect URIs with control or other non-URI characters, which the URL parser would have dropped', async () => {
    const bad = [
      'https://app.example/cb\r\nSet-Cookie: a=b',
      'https://app.example/c\tb',
      'https://app.example/cb\u0000',
      'http://127.0.0.1/cb\n',
      'https://app.example/a b',
      'https://app.example/cb\u2028',
    ];
    const res = await api.post('/oauth/clients', {
      name: 'Smuggler',
      redirect_uris: ['https://ok.example/cb', ...bad],
    });
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      bad.map((_, i) => `redirect_uris.${i + 1}`).sort(),
    );
    // nothing was registered, so authorize can never hand one back
    const clients = await api.get('/oauth/clients?limit=100');
    expect(clients.text).not.toContain('Smuggler');
  });
});

describe('GET /.well-known/oauth-authorization-server', () => {
  it('describes the endpoints at the URL the request reached, without a key', async () => {
    const res = await api.get('/.well-known/oauth-authorization-server', { key: null });
    expect(res.status).toBe(200);
    const issuer = baseUrl().replace(/\/$/, '');
    expect(res.body).toEqual({
      issuer,
      authorization_endpoint: `${issuer}/dashboard/oauth/authorize`, // the console's consent page
      token_endpoint: `${issuer}/oauth/token`,
      revocation_endpoint: `${issuer}/oauth/revoke`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      scopes_supported: ['full_access', 'sending_access'],
      token_endpoint_auth_methods_supported: ['none'],
      revocation_endpoint_auth_methods_supported: ['none'],
    });
  });

  it('takes the issuer from configuration, never from the Host or X-Forwarded-* headers the caller chooses', async () => {
    const url = new URL('/.well-known/oauth-authorization-server', baseUrl());
    const body = await new Promise<string>((resolve, reject) => {
      const req = httpRequest(
        url,
        { headers: { host: 'evil.example', 'x-forwarded-proto': 'https', 'x-forwarded-host': 'evil.example' } },
        (res) => {
          let text = '';
          res.on('data', (chunk) => (text += chunk));
          res.on('end', () => resolve(text));
        },
      );
      req.on('error', reject);
      req.end();
    });
    const metadata = JSON.parse(body);
    expect(metadata.issuer).toBe(baseUrl().replace(/\/$/, ''));
    expect(body).not.toContain('evil.example');
  });
});
