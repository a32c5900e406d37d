/**
 * The secrets the service keeps in its table (webhook signing secrets, the unsubscribe links' HMAC
 * key) are sealed before they are written: AES-256-GCM under a data key that KMS made under the
 * secrets key (envelope encryption), the data key stored beside the ciphertext in its encrypted form.
 *
 * Why here and not only the table's encryption at rest: DynamoDB decrypts items for anyone who may
 * read the table (every route function, an operator at the console, a restored backup or an export
 * to S3); a sealed secret is readable only by the functions granted Decrypt on the secrets key
 * (functions/needs.ts `secretsKey`, under the context of ./aws/secrets-key.ts), and every such use is in CloudTrail. Secrets Manager or SSM
 * per webhook was the other way: a secret per webhook costs money per month and an API call per
 * delivery, where this costs one KMS call per cold start.
 *
 * A sealed value: `esk1.<encrypted data key>.<iv>.<ciphertext and tag>` (base64url parts). One data
 * key seals everything a process seals for an hour (GenerateDataKey once per cold start, as the AWS
 * Encryption SDK's caching does; random 96-bit IVs stay far below GCM's limit). Each value is bound
 * to where it belongs (`aad`: the webhook, the unsubscribe key's item), so a sealed secret copied
 * into another item does not open. Opened data keys are kept per process (bounded), and per
 * function locally (./aws/call-guard.ts `grantScope`).
 *
 * Values written before sealing existed are plain: `openSecret` returns them as they are (they are
 * sealed when next written: a rotation).
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { grantScope } from './aws/call-guard';
import { type DataKey, decryptDataKey, generateDataKey } from './aws/kms';
import { now as clockNow } from './clock';

const PREFIX = 'esk1.';
const DATA_KEY_MAX_AGE_MS = 60 * 60 * 1000;
const OPENED_KEYS_MAX = 256;

const sealingKeys = new Map<string, { key: Promise<DataKey>; madeAt: number }>();
const openedKeys = new Map<string, Promise<Buffer>>();

function currentDataKey(now = clockNow()): Promise<DataKey> {
  const scope = grantScope();
  const current = sealingKeys.get(scope);
  if (current && now - current.madeAt <= DATA_KEY_MAX_AGE_MS) return current.key;
  const key = generateDataKey();
  sealingKeys.set(scope, { key, madeAt: now });
  key.catch(() => {
    if (sealingKeys.get(scope)?.key === key) sealingKeys.delete(scope); // try again next time
  });
  return key;
}

function openDataKey(encrypted: string): Promise<Buffer> {
  const cacheKey = `${grantScope()} ${encrypted}`;
  let key = openedKeys.get(cacheKey);
  if (!key) {
    if (openedKeys.size >= OPENED_KEYS_MAX) openedKeys.delete(openedKeys.keys().next().value as string); // the oldest
    key = decryptDataKey(Buffer.from(encrypted, 'base64url'));
    openedKeys.set(cacheKey, key);
    key.catch(() => openedKeys.delete(cacheKey));
  }
  return key;
}

export const isSealed = (value: string): boolean => value.startsWith(PREFIX);

/** `secret` sealed for the place `aad` names (the same `aad` opens it). */
export async function sealSecret(secret: string, aad: string): Promise<string> {
  const dataKey = await currentDataKey();
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', dataKey.plaintext, iv);
  cipher.setAAD(Buffer.from(aad));
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final(), cipher.getAuthTag()]);
  return PREFIX + [dataKey.ciphertext, iv, sealed].map((part) => part.toString('base64url')).join('.');
}

/** The secret a `sealSecret(secret, aad)` sealed; a plain (older) value as it is. Throws when it was sealed elsewhere or altered. */
export async function openSecret(stored: string, aad: string): Promise<string> {
  if (!isSealed(stored)) return stored;
  const [encryptedKey, iv, sealed] = stored.slice(PREFIX.length).split('.');
  const raw = Buffer.from(sealed ?? '', 'base64url');
  if (!encryptedKey || !iv || raw.length < 16) throw new Error('a sealed secret is malformed');
  const decipher = createDecipheriv('aes-256-gcm', await openDataKey(encryptedKey), Buffer.from(iv, 'base64url'));
  decipher.setAAD(Buffer.from(aad));
  decipher.setAuthTag(raw.subarray(raw.length - 16));
  return Buffer.concat([decipher.update(raw.subarray(0, raw.length - 16)), decipher.final()]).toString('utf8');
}
