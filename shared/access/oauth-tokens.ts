/**
 * OAuth identifiers, token formats, lifetimes and PKCE: pure functions, no database, so the
 * authentication dispatcher (shared/access/api-keys.ts) and the unit tests load nothing heavier.
 *
 * Formats (the prefixes tell a leaked string's kind at a glance, like `es_live_` keys):
 * - client id `es_client_` + 24 base62 (public; a lookup item of its own points to the project)
 * - authorization code `es_code_` + 40 base62, single-use, 10 minutes
 * - access token `es_oat_` + 40 base62, 1 hour; a bearer key of the grant's scope
 * - refresh token `es_ort_` + 48 base62, 30 days; rotated on every use
 * Codes and tokens are stored only as their SHA-256 (`hashToken`, as API keys are).
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from './api-key-token';
import type { OAuthScope } from './model';
import { now } from '../platform/clock';

export const CLIENT_ID_PATTERN = /^es_client_[0-9A-Za-z]{24}$/;
export const CODE_PATTERN = /^es_code_[0-9A-Za-z]{40}$/;
export const ACCESS_TOKEN_PATTERN = /^es_oat_[0-9A-Za-z]{40}$/;
export const REFRESH_TOKEN_PATTERN = /^es_ort_[0-9A-Za-z]{48}$/;

export const newClientId = () => `es_client_${randomBase62(24)}`;
export const newCode = () => `es_code_${randomBase62(40)}`;
export const newAccessToken = () => `es_oat_${randomBase62(40)}`;
export const newRefreshToken = () => `es_ort_${randomBase62(48)}`;

export const CODE_TTL_SECONDS = 10 * 60;
export const ACCESS_TOKEN_TTL_SECONDS = 60 * 60;
export const REFRESH_TOKEN_TTL_SECONDS = 30 * 24 * 60 * 60;

export const DEFAULT_SCOPE: OAuthScope = 'sending_access';

/** Whether a grant of `granted` covers `requested`: full_access covers sending_access, not the reverse. */
export const scopeCovers = (granted: OAuthScope, requested: OAuthScope): boolean =>
  granted === requested || (granted === 'full_access' && requested === 'sending_access');

/** RFC 7636 §4.2: an S256 challenge is base64url (no padding); 43-128 characters as the issue allows. */
export const CODE_CHALLENGE_PATTERN = /^[A-Za-z0-9_-]{43,128}$/;
/** RFC 7636 §4.1: 43-128 unreserved characters. */
export const CODE_VERIFIER_PATTERN = /^[A-Za-z0-9._~-]{43,128}$/;

/** The S256 challenge of a verifier: base64url(SHA-256(ASCII(verifier))), unpadded. */
export const s256Challenge = (verifier: string): string =>
  createHash('sha256').update(verifier, 'ascii').digest('base64url');

/** PKCE check of the token request (RFC 7636 §4.6), in constant time. */
export function pkceMatches(verifier: string, challenge: string): boolean {
  if (!CODE_VERIFIER_PATTERN.test(verifier)) return false;
  const expected = Buffer.from(s256Challenge(verifier));
  const given = Buffer.from(challenge);
  return expected.length === given.length && timingSafeEqual(expected, given);
}

export const epochSeconds = (ms: number = now()): number => Math.floor(ms / 1000);
export const isoFromEpoch = (seconds: number): string => new Date(seconds * 1000).toISOString();
