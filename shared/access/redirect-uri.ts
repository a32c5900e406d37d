/**
 * OAuth redirect URIs: which ones a client may register, and whether an authorization request's
 * `redirect_uri` is one of them. Pure functions (unit-tested directly).
 *
 * Registration: an absolute `https` URI, or `http` on a loopback host (127.0.0.1, [::1],
 * localhost) for native apps and CLIs (RFC 8252 §7.3); no fragment (RFC 6749 §3.1.2), no user
 * information, at most 2,048 characters. Custom schemes are refused. Only RFC 3986 characters,
 * checked on the string as given: WHATWG URL parsing silently drops tabs and newlines and
 * escapes spaces, so a URI that parses may still carry bytes that must never reach a Location header.
 *
 * Matching is exact string comparison (RFC 6749 §3.1.2.3, no normalisation, no prefix match),
 * with the exception RFC 8252 §7.3 asks for: a native app picks a free port at run time, so an
 * `http` loopback URI registered without a port matches the same URI with any port (1-65535).
 * One registered with a port matches that port only, compared as a number (`:0080` is `:80`,
 * and no port is 80).
 */
export const MAX_REDIRECT_URI_LENGTH = 2048;
export const MAX_REDIRECT_URIS = 10;

const LOOPBACK_HOSTS = new Set(['127.0.0.1', '[::1]', 'localhost']);
/** The scheme and loopback host, then an optional port, then the path, query or the end. */
const LOOPBACK_AUTHORITY = /^(http:\/\/(?:127\.0\.0\.1|\[::1\]|localhost))(?::(\d{1,5}))?(?=[/?]|$)/;
/** RFC 3986 §2: unreserved and reserved characters, and `%` (which must start a percent-encoding). */
const URI_CHARACTERS = /^[A-Za-z0-9\-._~:/?#[\]@!$&'()*+,;=%]*$/;
const STRAY_PERCENT = /%(?![0-9A-Fa-f]{2})/;
const HTTP_DEFAULT_PORT = 80;

const onlyUriCharacters = (uri: string): boolean => URI_CHARACTERS.test(uri) && !STRAY_PERCENT.test(uri);

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
  if (!onlyUriCharacters(uri))
    return 'must contain only URI characters (RFC 3986): no spaces, control or non-ASCII characters, and % only in percent-encodings';
  const url = parse(uri);
  if (!url) return 'must be an absolute URI';
  if (uri.includes('#')) return 'must not contain a fragment';
  if (url.username || url.password) return 'must not contain user information';
  const allowed = url.protocol === 'https:' || (url.protocol === 'http:' && LOOPBACK_HOSTS.has(url.hostname));
  if (!allowed || !/^https?:\/\//.test(uri))
    return 'must be https, or http on a loopback host (127.0.0.1, [::1] or localhost)';
  if (url.port === '0' || loopbackParts(uri)?.port === 0) return 'must not name port 0';
  return undefined;
}

/** An http loopback URI as the URI without its port, and the port it names (a number; undefined when it names none); else undefined. */
function loopbackParts(uri: string): { withoutPort: string; port?: number } | undefined {
  const match = LOOPBACK_AUTHORITY.exec(uri);
  if (!match) return undefined;
  return {
    withoutPort: match[1] + uri.slice(match[0].length),
    port: match[2] === undefined ? undefined : Number(match[2]),
  };
}

/**
 * Whether the requested redirect URI is the registered one: identical, or the same loopback URI
 * on another port when the registered one names none, or on the same port written otherwise.
 */
export function redirectUriMatches(registered: string, requested: string): boolean {
  if (!onlyUriCharacters(requested) || parse(requested) === undefined) return false;
  if (registered === requested) return true;
  const ours = loopbackParts(registered);
  const theirs = loopbackParts(requested);
  if (!ours || !theirs || ours.withoutPort !== theirs.withoutPort) return false;
  if (theirs.port !== undefined && (theirs.port < 1 || theirs.port > 65535)) return false;
  if (ours.port === undefined) return true;
  return ours.port === (theirs.port ?? HTTP_DEFAULT_PORT);
}
