/**
 * OAuth redirect URIs: which ones a client may register, and whether an authorization request's
 * `redirect_uri` is one of them. Pure functions (unit-tested directly).
 *
 * Registration: an absolute `https` URI, or `http` on a loopback host (127.0.0.1, [::1],
 * localhost) for native apps and CLIs (RFC 8252 §7.3); no fragment (RFC 6749 §3.1.2), no user
 * information, at most 2,048 characters. Custom schemes are refused.
 *
 * Matching is exact string comparison (RFC 6749 §3.1.2.3, no normalisation, no prefix match),
 * with the one exception RFC 8252 §7.3 requires: a registered `http` loopback URI matches the
 * same URI with any port, because a native app picks a free port at run time.
 */
export const MAX_REDIRECT_URI_LENGTH = 2048;
export const MAX_REDIRECT_URIS = 10;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** The scheme and loopback host, then an optional port, then the path, query or the end. */
const LOOPBACK_AUTHORITY = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::\d{1,5})?(?=[/?]|$)/;

function parse(uri: string): URL | undefined {
  try {
    return new URL(uri);
  } catch {
    return undefined;
  }
}

/** Why `uri` cannot be registered, or undefined when it can. */
export function redirectUriProblem(uri: string): string | undefined {
  if (uri.length > MAX_REDIRECT_URI_LENGTH) return `must be at most ${MAX_REDIRECT_URI_LENGTH} characters`;
  const url = parse(uri);
  if (!url) return 'must be an absolute URI';
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain user information';
  const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  if (!allowed || !/^https?:\/\//.test(uri)) return 'must be https, or http on a loopback host (127.0.0.1, [::1] or localhost)';
  return undefined;
}

/** `uri` without its port when it is an http loopback URI, else undefined. */
function loopbackWithoutPort(uri: string): string | undefined {
  const match = LOOPBACK_AUTHORITY.exec(uri);
  return match ? match[1] + uri.slice(match[0].length) : undefined;
}

/** Whether the requested redirect URI is the registered one: identical, or a loopback URI differing only in port. */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (registered === requested) return true;
  const base = loopbackWithoutPort(registered);
  if (base === undefined || base !== loopbackWithoutPort(requested)) return false;
  return parse(requested) !== undefined; // the port must be a real one (1-65535)
}
