/**
 * Webhook signing per Standard Webhooks (https://www.standardwebhooks.com), which Svix and so
 * Resend's clients verify:
 *
 * - secret: `whsec_` + base64 of 32 random bytes; the HMAC key is the decoded bytes. It is
 *   stored as it is, because signing needs it (the table is encrypted at rest by DynamoDB); it is
 *   shown once, in the create (and rotate) response. `secret_prefix` is its first 10 characters.
 * - headers: `webhook-id` (the event id, the same on every attempt, so receivers can drop
 *   duplicates), `webhook-timestamp` (epoch seconds of this attempt) and `webhook-signature`:
 *   `v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`, several space-separated while a
 *   rotated-out secret still signs. The same values again as `svix-id`, `svix-timestamp`,
 *   `svix-signature`.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { now as clockNow } from '../platform/clock';

export const SECRET_PREFIX = 'whsec_';
/** After a rotation the old secret keeps signing, next to the new one, this long. */
export const ROTATED_SECRET_TTL_MS = 24 * 60 * 60 * 1000;

export const newSigningSecret = (): string => SECRET_PREFIX + randomBytes(32).toString('base64');
export const secretPrefix = (secret: string): string => secret.slice(0, 10);

export function sign(secret: string, id: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(SECRET_PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`;
}

/** The signature headers of one attempt; `secrets` are the current one and, during a rotation, the old one. */
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
