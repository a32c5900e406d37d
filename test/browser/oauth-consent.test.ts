/**
 * The OAuth consent page (/dashboard/oauth/authorize, issue 24) in headless Chromium: a PKCE client
 * is sent to the page, the user signs in with the project's key, sees the client's name, the scope and
 * the redirect host, approves, lands on the redirect URI with `code` and `state`, and the client
 * exchanges the code for a token (POST /oauth/token) that works. Deny lands with
 * `error=access_denied`; an unknown client or an unregistered redirect URI shows an error and
 * never redirects. The metadata's authorization_endpoint is this page.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Browser } from 'playwright-core';
import { consoleUrl, launchBrowser, openConsole, ownProject, settled, signIn } from '../support/browser';
import { api, baseUrl } from '../support/http';
import { checkScreen } from './screens';

let browser: Browser;
let key: string;
let receiver: Server;
let redirectUri: string;
let client: { client_id: string; name: string };

beforeAll(async () => {
  [browser, { key }] = await Promise.all([launchBrowser(), ownProject('consent test')]);
  // the client's redirect URI: a page on loopback that shows what it got
  receiver = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>client</title><h1>client app</h1>'),
  );
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  redirectUri = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/callback`;
  const created = await api.post(
    '/oauth/clients',
    { name: 'Acme CLI', redirect_uris: ['http://127.0.0.1/callback'] },
    { key },
  );
  expect(created.status).toBe(201);
  client = created.body;
});
afterAll(async () => {
  await browser?.close();
  receiver?.close();
});

function pkce() {
  const verifier = randomBytes(48).toString('base64url');
  return { verifier, challenge: createHash('sha256').update(verifier).digest('base64url') };
}

const consentPath = (params: Record<string, string>) => `/oauth/authorize?${new URLSearchParams(params)}`;

it('points the authorization server metadata at the consent page', async () => {
  const metadata = await api.get('/.well-known/oauth-authorization-server', { key: null });
  expect(metadata.body.authorization_endpoint).toBe(`${baseUrl()}/dashboard/oauth/authorize`);
});

it('approves a PKCE client: back at the redirect URI with code and state, and the code becomes a working token', async () => {
  const { page, dialogs, foreignRequests } = await openConsole(browser);
  const { verifier, challenge } = pkce();
  const state = 'st-' + randomBytes(6).toString('hex');
  await signIn(
    page,
    key,
    consentPath({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: challenge,
      code_challenge_method: 'S256',
      scope: 'full_access',
      state,
    }),
  );
  await page.getByRole('heading', { name: 'Authorize Acme CLI' }).waitFor();
  const text = await page.locator('.consent').textContent();
  expect(text).toContain('full_access');
  expect(text).toContain(new URL(redirectUri).host);
  expect(await checkScreen(page, 'oauth-consent')).toEqual([]);

  await page.getByRole('button', { name: 'Approve' }).click();
  await page.waitForURL((url) => url.toString().startsWith(redirectUri));
  const landed = new URL(page.url());
  expect(landed.searchParams.get('state')).toBe(state);
  const code = landed.searchParams.get('code')!;
  expect(code).toBeTruthy();

  const tokens = await fetch(`${baseUrl()}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code,
      code_verifier: verifier,
      client_id: client.client_id,
      redirect_uri: redirectUri,
    }),
  });
  expect(tokens.status).toBe(200);
  const { access_token, scope } = (await tokens.json()) as { access_token: string; scope: string };
  expect(scope).toBe('full_access');
  expect((await api.get('/domains', { key: access_token })).status).toBe(200);
  expect(dialogs).toEqual([]);
  expect(foreignRequests.filter((url) => !url.startsWith(new URL(redirectUri).origin))).toEqual([]);
});

it('denies: back at the redirect URI with error=access_denied and the state, no code', async () => {
  const { page } = await openConsole(browser);
  await signIn(
    page,
    key,
    consentPath({
      client_id: client.client_id,
      redirect_uri: redirectUri,
      code_challenge: pkce().challenge,
      state: 'deny-1',
    }),
  );
  await page.getByRole('button', { name: 'Deny' }).click();
  await page.waitForURL((url) => url.toString().startsWith(redirectUri));
  const landed = new URL(page.url());
  expect(Object.fromEntries(landed.searchParams)).toEqual({ error: 'access_denied', state: 'deny-1' });
});

it.each([
  [
    'an unknown client',
    () => ({ client_id: 'es_client_doesnotexist000000000000', redirect_uri: redirectUri }),
    /Unknown client/,
  ],
  [
    'a redirect URI the client did not register',
    () => ({ client_id: client.client_id, redirect_uri: 'https://evil.example/callback' }),
    /not one this client registered/,
  ],
])('shows an error for %s and never redirects', async (_, params, message) => {
  const { page, foreignRequests } = await openConsole(browser);
  await signIn(page, key, consentPath({ ...params(), code_challenge: pkce().challenge, state: 'x' }));
  await page.getByRole('heading', { name: 'Authorization failed' }).waitFor();
  expect(await page.getByRole('alert').textContent()).toMatch(message);
  expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
  await settled(page);
  expect(page.url().startsWith(consoleUrl('/oauth/authorize'))).toBe(true);
  expect(foreignRequests).toEqual([]);
});
