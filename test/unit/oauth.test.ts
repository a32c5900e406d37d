/** The pure parts of OAuth: PKCE, token formats, redirect URI rules, and the exact table keys. */
import * as keys from '../../shared/platform/db/keys';
import {
  ACCESS_TOKEN_PATTERN,
  CLIENT_ID_PATTERN,
  CODE_PATTERN,
  newAccessToken,
  newClientId,
  newCode,
  newRefreshToken,
  pkceMatches,
  REFRESH_TOKEN_PATTERN,
  s256Challenge,
  scopeCovers,
} from '../../shared/access/oauth-tokens';
import { redirectUriMatches, redirectUriProblem } from '../../shared/access/redirect-uri';
import { requiredScope, scopeRefusal } from '../../shared/platform/http/operation';
import { routes } from '../../functions/routes';

describe('PKCE (RFC 7636)', () => {
  // RFC 7636 Appendix B
  const verifier = 'dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk';
  const challenge = 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM';

  it('derives the S256 challenge of the RFC example', () => {
    expect(s256Challenge(verifier)).toBe(challenge);
  });

  it('accepts the verifier of the challenge and nothing else', () => {
    expect(pkceMatches(verifier, challenge)).toBe(true);
    expect(pkceMatches(`${verifier.slice(0, -1)}j`, challenge)).toBe(false);
    expect(pkceMatches(verifier, `${challenge.slice(0, -1)}d`)).toBe(false);
    expect(pkceMatches(verifier, challenge.slice(1))).toBe(false);
    expect(pkceMatches(challenge, challenge)).toBe(false);
  });

  it('refuses verifiers outside 43-128 unreserved characters, even when they hash right', () => {
    const short = 'a'.repeat(42);
    expect(pkceMatches(short, s256Challenge(short))).toBe(false);
    const long = 'a'.repeat(129);
    expect(pkceMatches(long, s256Challenge(long))).toBe(false);
    const spaced = `${'a'.repeat(43)} `;
    expect(pkceMatches(spaced, s256Challenge(spaced))).toBe(false);
    const edge = `${'a'.repeat(124)}-._~`;
    expect(pkceMatches(edge, s256Challenge(edge))).toBe(true);
  });
});

describe('OAuth identifiers and tokens', () => {
  it('have their prefixes and lengths, and are random', () => {
    expect(newClientId()).toMatch(CLIENT_ID_PATTERN);
    expect(newCode()).toMatch(CODE_PATTERN);
    expect(newAccessToken()).toMatch(ACCESS_TOKEN_PATTERN);
    expect(newRefreshToken()).toMatch(REFRESH_TOKEN_PATTERN);
    expect(ACCESS_TOKEN_PATTERN.test(newRefreshToken())).toBe(false);
    expect(new Set(Array.from({ length: 500 }, newAccessToken)).size).toBe(500);
  });

  it('let full_access cover sending_access, not the reverse', () => {
    expect(scopeCovers('full_access', 'sending_access')).toBe(true);
    expect(scopeCovers('full_access', 'full_access')).toBe(true);
    expect(scopeCovers('sending_access', 'full_access')).toBe(false);
  });
});

describe('redirect URIs', () => {
  it.each([
    'https://app.example/callback',
    'https://app.example:8443/cb?x=1',
    'http://127.0.0.1/cb',
    'http://127.0.0.1:8080/cb',
    'http://[::1]:8080/cb',
    'http://localhost/cb',
  ])('may register %s', (uri) => {
    expect(redirectUriProblem(uri)).toBeUndefined();
  });

  it.each(
    (
      [
        ['http://app.example/cb', /https/],
        ['http://192.168.0.1/cb', /https/],
        ['com.example.app:/cb', /absolute|https/],
        ['javascript:alert(1)', /https/],
        ['HTTPS://app.example/cb', /https/],
        ['/relative/cb', /absolute/],
        ['https://app.example/cb#x', /fragment/],
        ['https://app.example/cb#', /fragment/],
        ['https://user:pw@app.example/cb', /user/],
        [`https://app.example/${'a'.repeat(2048)}`, /2048/],
        // the URL parser drops tabs and newlines and escapes spaces: these parse, and must still be refused
        ['https://app.example/cb\r\nSet-Cookie: x=1', /URI characters/],
        ['https://app.example/cb\n', /URI characters/],
        ['https://app.example/c\tb', /URI characters/],
        ['https://app.example/cb\u0000', /URI characters/],
        ['https://app.example/c b', /URI characters/],
        ['https://app.example/cb?x=<script>', /URI characters/],
        ['https://app.example/cb\u2028', /URI characters/],
        ['https://app.example/caf\u00e9', /URI characters/],
        ['https://app.example\\@evil.example/cb', /URI characters/],
        ['https://app.example/cb?x=%zz', /URI characters/],
        ['http://127.0.0.1:0/cb', /port 0/],
      ] as Array<[string, RegExp]>
    ).map(
      ([uri, reason]) =>
        [
          uri.length > 60 ? `a URI of ${uri.length} characters` : /[^\x21-\x7e]/.test(uri) ? JSON.stringify(uri) : uri,
          uri,
          reason,
        ] as const,
    ),
  )('may not register %s', (_, uri, reason) => {
    expect(redirectUriProblem(uri)).toMatch(reason);
  });

  it('match exactly, without normalising', () => {
    const registered = 'https://app.example/callback';
    expect(redirectUriMatches(registered, registered)).toBe(true);
    for (const other of [
      'https://app.example/callback/',
      'https://APP.example/callback',
      'https://app.example:443/callback',
      'https://app.example/callback?x',
      'https://app.example/Callback',
      'https://app.example/cal%6Cback',
    ]) {
      expect(redirectUriMatches(registered, other)).toBe(false);
    }
    // port freedom is only for loopback http
    expect(redirectUriMatches('https://app.example:8443/cb', 'https://app.example:9443/cb')).toBe(false);
    expect(redirectUriMatches('https://127.0.0.1/cb', 'https://127.0.0.1:8080/cb')).toBe(false);
  });

  it('let a loopback URI registered without a port differ in port only (RFC 8252 §7.3)', () => {
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:51004/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:1/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:65535/cb')).toBe(true);
    expect(redirectUriMatches('http://[::1]/cb', 'http://[::1]:1234/cb')).toBe(true);
    expect(redirectUriMatches('http://localhost/cb?a=1', 'http://localhost:1234/cb?a=1')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1', 'http://127.0.0.1:1234')).toBe(true);

    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:51004/other')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://localhost:51004/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:51004/cb?x=1')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:99999/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1.evil.example/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:80@evil.example/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:0/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:00000/cb')).toBe(false);
  });

  it('hold a loopback URI registered with a port to that port, compared as a number', () => {
    expect(redirectUriMatches('http://127.0.0.1:80/cb', 'http://127.0.0.1:0080/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:0080/cb', 'http://127.0.0.1:80/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:80/cb', 'http://127.0.0.1/cb')).toBe(true); // no port is 80
    expect(redirectUriMatches('http://[::1]:08080/cb', 'http://[::1]:8080/cb')).toBe(true);
    expect(redirectUriMatches('http://127.0.0.1:8080/cb', 'http://127.0.0.1:51004/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:8080/cb', 'http://127.0.0.1/cb')).toBe(false);
    expect(redirectUriMatches('http://127.0.0.1:8080/cb', 'http://127.0.0.1:80800/cb')).toBe(false);
  });

  it('never match a requested URI with characters a URI cannot hold', () => {
    expect(redirectUriMatches('http://127.0.0.1/cb', 'http://127.0.0.1:8080/cb\r\nX: y')).toBe(false);
    expect(redirectUriMatches('https://app.example/cb', 'https://app.example/c\tb')).toBe(false);
  });
});

describe('OAuth table keys', () => {
  it('keep clients and grants under the project and every lookup on its own key', () => {
    expect(keys.oauthClient('p1', 'c1')).toEqual({ PK: 'PROJECT#p1', SK: 'OAUTH_CLIENT#c1' });
    expect(keys.oauthClients('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'OAUTH_CLIENT#' });
    expect(keys.oauthGrant('p1', 'g1')).toEqual({ PK: 'PROJECT#p1', SK: 'OAUTH_GRANT#g1' });
    expect(keys.oauthGrants('p1')).toEqual({ PK: 'PROJECT#p1', prefix: 'OAUTH_GRANT#' });
    expect(keys.oauthClientId('es_client_x')).toEqual({ PK: 'OAUTH_CLIENT_ID#es_client_x', SK: 'OAUTH_CLIENT_ID' });
    expect(keys.oauthCode('abc')).toEqual({ PK: 'OAUTH_CODE#abc', SK: 'OAUTH_CODE' });
    expect(keys.oauthAccessToken('abc')).toEqual({ PK: 'OAUTH_ACCESS_TOKEN#abc', SK: 'OAUTH_ACCESS_TOKEN' });
    expect(keys.oauthRefreshToken('abc')).toEqual({ PK: 'OAUTH_REFRESH_TOKEN#abc', SK: 'OAUTH_REFRESH_TOKEN' });
  });

  it('never let an OAuth collection prefix swallow another collection', () => {
    const prefixes = [
      keys.oauthClients('p').prefix,
      keys.oauthGrants('p').prefix,
      keys.segments('p').prefix,
      keys.apiKeys('p').prefix,
      keys.events('p').prefix,
      keys.domains('p').prefix,
    ];
    for (const a of prefixes) for (const b of prefixes) if (a !== b) expect(b.startsWith(a)).toBe(false);
  });
});

describe('scopes', () => {
  const keyed = routes.filter((r) => r.operation.auth === 'api_key');
  const scopeOf = (operationId: string) =>
    requiredScope(keyed.find((r) => r.operation.operationId === operationId)!.operation);

  it('let sending_access keys and tokens only send, as on Resend', () => {
    const sending = keyed
      .filter((r) => requiredScope(r.operation) === 'sending_access')
      .map((r) => `${r.method} ${r.path}`);
    expect(sending.sort()).toEqual(['POST /emails', 'POST /emails/batch']);
  });

  it('keep API keys, OAuth clients, authorization codes and grants to full_access API keys', () => {
    const credentialRoutes = keyed.filter((r) => r.path.startsWith('/api-keys') || r.path.startsWith('/oauth/'));
    expect(credentialRoutes.length).toBeGreaterThanOrEqual(9);
    for (const route of credentialRoutes)
      expect([route.path, requiredScope(route.operation)]).toEqual([route.path, 'full_access_api_key']);
    expect(scopeOf('createApiKey')).toBe('full_access_api_key');
    expect(scopeOf('createOAuthClient')).toBe('full_access_api_key');
    expect(scopeOf('authorize')).toBe('full_access_api_key');
  });

  it('refuse by permission, then by kind of credential', () => {
    const apiKey = (permission: 'full_access' | 'sending_access') => ({ permission });
    const token = (permission: 'full_access' | 'sending_access') => ({ permission, grantId: 'g1' });
    expect(scopeRefusal(apiKey('sending_access'), 'sending_access')).toBeUndefined();
    expect(scopeRefusal(token('sending_access'), 'sending_access')).toBeUndefined();
    expect(scopeRefusal(apiKey('sending_access'), 'full_access')).toMatch(/sending_access/);
    expect(scopeRefusal(token('sending_access'), 'full_access')).toMatch(/sending_access/);
    expect(scopeRefusal(apiKey('full_access'), 'full_access')).toBeUndefined();
    expect(scopeRefusal(token('full_access'), 'full_access')).toBeUndefined();
    expect(scopeRefusal(apiKey('full_access'), 'full_access_api_key')).toBeUndefined();
    expect(scopeRefusal(token('full_access'), 'full_access_api_key')).toMatch(/OAuth access tokens/);
  });
});
