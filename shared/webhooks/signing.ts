/**
 * Webhook signing per Standard Webhooks (https://www.standardwebhooks.com), which Svix and so
 * Resend's clients verify:
 *
 * - `hmac_sha256` (the default, Resend's): secret `whsec_` + base64 of 32 random bytes; the HMAC
 *   key is the decoded bytes. Stored sealed (shared/platform/secrets.ts), because signing needs it;
 *   shown once, in the create (and rotate) response. `secret_prefix` is its first 10 characters.
 *   Signature `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`.
 * - `ed25519` (the spec's asymmetric `v1a`): a key pair per webhook. The private key, `whsk_` +
 *   base64 of its 32-byte seed, is sealed like the HMAC secret and never shown; the public key,
 *   `whpk_` + base64 of its 32 raw bytes, is shown on the webhook (`public_key`: a receiver needs
 *   no secret to verify, and one that leaks lets nobody sign). `secret_prefix` is the public key's
 *   first 10 characters. Signature `v1a,<base64 Ed25519 signature of "<id>.<timestamp>.<body>">`.
 * - headers: `webhook-id` (the event id, the same on every attempt, so receivers can drop
 *   duplicates), `webhook-timestamp` (epoch seconds of this attempt) and `webhook-signature`: the
 *   signatures, several space-separated while a rotated-out secret or key still signs. The same
 *   values again as `svix-id`, `svix-timestamp`, `svix-signature`.
 *
 * What signs is told by the stored secret's prefix (`whsec_` or `whsk_`), so a rotation, which
 * keeps the old one signing beside the new, needs nothing else.
 */
import { createHmac, createPrivateKey, generateKeyPairSync, randomBytes, sign as cryptoSign } from 'node:crypto';
import { now as clockNow } from '../platform/clock';
import type { SignatureAlgorithm } from './model';

export const SECRET_PREFIX = 'whsec_';
export const PRIVATE_KEY_PREFIX = 'whsk_';
export const PUBLIC_KEY_PREFIX = 'whpk_';
// DER headers of an Ed25519 key (RFC 8410) before its 32 raw bytes: PKCS #8 for the private, SPKI for the public
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');
const SPKI_ED25519 = Buffer.from('302a300506032b6570032100', 'hex');
/** After a rotation the old secret keeps signing, next to the new one, this long. */
export const ROTATED_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export const newSigningSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64');
export const secretPrefix = (secret: string): string => secret.slice(0, 10);

/** What a webhook of `algorithm` signs with (`secret`, to seal) and what it shows (`publicKey` for ed25519). */
export function newSigningKey(algorithm: SignatureAlgorithm): { secret: string; publicKey: string | null } {
  if (algorithm === 'hmac_sha256') return { secret: newSigningSecret(), publicKey: null };
  const { privateKey, publicKey } = generateKeyPairSync('ed25519');
  const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(PKCS8_ED25519.length);
  const raw = publicKey.export({ format: 'der', type: 'spki' }).subarray(SPKI_ED25519.length);
  return {
    secret: PRIVATE_KEY_PREFIX + seed.toString('base64'),
    publicKey: PUBLIC_KEY_PREFIX + raw.toString('base64'),
  };
}

/** One signature of `<id>.<timestamp>.<body>`: `v1a,` with a `whsk_` private key, `v1,` (HMAC) with a `whsec_` secret. */
export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const content = `${id}.${timestamp}.${body}`;
  if (secret.startsWith(PRIVATE_KEY_PREFIX)) {
    const seed = Buffer.from(secret.slice(PRIVATE_KEY_PREFIX.length), 'base64');
    const key = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
    return `v1a,${cryptoSign(null, Buffer.from(content), key).toString('base64')}`;
  }
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(content).digest('base64')}`;
}

/** The signature headers of one attempt; `secrets` (`whsec_` or `whsk_`) are the current one and, during a rotation, the old one. */
export function signatureHeaders(
  secrets: string[],
  id: string,
  body: string,
  now = clockNow(),
): Record<string, string> {
  const timestamp = Math.floor(now / 1000);
  const signature = secrets.map((secret) => sign(secret, id, timestamp, body)).join(' ');
  return {
    'webhook-id': id,
    'webhook-timestamp': String(timestamp),
    'webhook-signature': signature,
    'svix-id': id,
    'svix-timestamp': String(timestamp),
    'svix-signature': signature,
  };
}
