/**
 * The local stand-in for KMS: the calls the service makes on its secrets key (GenerateDataKey,
 * Decrypt) and Encrypt, over KMS's JSON 1.1 protocol on loopback, so the real `@aws-sdk/client-kms`
 * and the service's hand-signed calls (shared/platform/aws/kms.ts) both work against it
 * (test/unit/kms.test.ts). Handlers reach it through `AWS_ENDPOINT_URL_KMS`.
 *
 * One symmetric key, its 256-bit material in `<DATA_DIR>/kms/<key id>.key` (made on first start,
 * mode 0600), so what a runtime sealed opens after a restart on the same DATA_DIR. A ciphertext
 * blob is AES-256-GCM under that material with the encryption context as additional data, as KMS
 * binds it: Decrypt with another context, another key or altered bytes answers KMS's
 * `InvalidCiphertextException` / `IncorrectKeyException`. Which function may call what is the call
 * guard's (local/lambda/needs.ts).
 *
 * Every request must be SigV4-signed with the runtime's generated credentials (./credentials.ts,
 * checked by ./sigv4.ts, `X-Amz-Date` within 15 minutes): else KMS's own answers,
 * `MissingAuthenticationTokenException` (403, unsigned), `UnrecognizedClientException` (400, another
 * key id), `InvalidSignatureException` (400, a signature that does not match, or expired). The key
 * material's file name is the fixed key id, never a name from a request, and is checked to resolve
 * inside `dir`.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { resolve, sep } from 'node:path';
import type { StandInCredentials } from './credentials';
import { type SignatureVerdict, verifySignature } from './sigv4';

/** The local secrets key: a fixed id, so SECRETS_KEY_ARN is the same on every start. */
export const LOCAL_SECRETS_KEY_ID = '5ec7e75a-0000-4000-8000-000000000001';
export const localSecretsKeyArn = (region: string) => `arn:aws:kms:${region}:000000000000:key/${LOCAL_SECRETS_KEY_ID}`;

export interface LocalKms {
  server: Server;
  endpoint: string;
  keyArn: string;
}

const MAGIC = Buffer.from('LKMS1');

class KmsFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

/** The context as KMS compares it: the same pairs in any order are the same context. */
const contextBytes = (context: unknown) =>
  Buffer.from(
    JSON.stringify(
      Object.entries((context ?? {}) as Record<string, string>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
    ),
  );

function loadMaterial(dir: string): Buffer {
  mkdirSync(dir, { recursive: true });
  const file = resolve(dir, `${LOCAL_SECRETS_KEY_ID}.key`);
  if (!file.startsWith(resolve(dir) + sep)) throw new Error(`the KMS key file would leave ${dir}`);
  if (!existsSync(file)) {
    writeFileSync(file, randomBytes(32), { flag: 'wx', mode: 0o600 });
    chmodSync(file, 0o600);
  }
  return readFileSync(file);
}

/** KMS's answer to a signature that does not hold. */
const AUTH_ERRORS: Record<Exclude<SignatureVerdict, { ok: true }>['reason'], [number, string]> = {
  missing: [403, 'MissingAuthenticationTokenException'],
  malformed: [400, 'IncompleteSignatureException'],
  'unknown key': [400, 'UnrecognizedClientException'],
  mismatch: [400, 'InvalidSignatureException'],
  skewed: [400, 'InvalidSignatureException'],
  expired: [400, 'InvalidSignatureException'],
};

/** KMS on loopback for requests signed with `credentials`. */
export async function startLocalKms(dir: string, region: string, credentials: StandInCredentials): Promise<LocalKms> {
  const material = loadMaterial(dir);
  const keyArn = localSecretsKeyArn(region);
  const isOurKey = (keyId: unknown) => keyId === keyArn || keyId === LOCAL_SECRETS_KEY_ID;

  const encrypt = (plaintext: Buffer, context: unknown): Buffer => {
    const iv = randomBytes(12);
    const cipher = createCipheriv('aes-256-gcm', material, iv);
    cipher.setAAD(contextBytes(context));
    const body = Buffer.concat([cipher.update(plaintext), cipher.final()]);
    return Buffer.concat([MAGIC, iv, cipher.getAuthTag(), body]);
  };
  const decrypt = (blob: Buffer, context: unknown): Buffer => {
    if (blob.length < MAGIC.length + 28 || !blob.subarray(0, MAGIC.length).equals(MAGIC))
      throw new KmsFault('InvalidCiphertextException', 'The ciphertext is invalid');
    const iv = blob.subarray(MAGIC.length, MAGIC.length + 12);
    const tag = blob.subarray(MAGIC.length + 12, MAGIC.length + 28);
    try {
      const decipher = createDecipheriv('aes-256-gcm', material, iv);
      decipher.setAAD(contextBytes(context));
      decipher.setAuthTag(tag);
      return Buffer.concat([decipher.update(blob.subarray(MAGIC.length + 28)), decipher.final()]);
    } catch {
      throw new KmsFault(
        'InvalidCiphertextException',
        'The ciphertext or its encryption context is not what was encrypted',
      );
    }
  };
  const requireKey = (keyId: unknown) => {
    if (!isOurKey(keyId)) throw new KmsFault('NotFoundException', `Key '${String(keyId)}' does not exist`);
  };

  const operations: Record<string, (input: Record<string, unknown>) => Record<string, unknown>> = {
    GenerateDataKey: (input) => {
      requireKey(input.KeyId);
      const bytes = input.KeySpec === 'AES_256' ? 32 : input.KeySpec === 'AES_128' ? 16 : Number(input.NumberOfBytes);
      if (!Number.isInteger(bytes) || bytes < 1 || bytes > 1024)
        throw new KmsFault('ValidationException', 'Specify KeySpec or NumberOfBytes');
      const plaintext = randomBytes(bytes);
      return {
        KeyId: keyArn,
        Plaintext: plaintext.toString('base64'),
        CiphertextBlob: encrypt(plaintext, input.EncryptionContext).toString('base64'),
      };
    },
    Encrypt: (input) => {
      requireKey(input.KeyId);
      const plaintext = Buffer.from(String(input.Plaintext ?? ''), 'base64');
      if (plaintext.length < 1 || plaintext.length > 4096)
        throw new KmsFault('ValidationException', 'Plaintext must be 1 to 4096 bytes');
      return {
        KeyId: keyArn,
        CiphertextBlob: encrypt(plaintext, input.EncryptionContext).toString('base64'),
        EncryptionAlgorithm: 'SYMMETRIC_DEFAULT',
      };
    },
    Decrypt: (input) => {
      if (input.KeyId !== undefined && !isOurKey(input.KeyId))
        throw new KmsFault(
          'IncorrectKeyException',
          'The key ID in the request does not identify the key that encrypted the ciphertext',
        );
      const plaintext = decrypt(Buffer.from(String(input.CiphertextBlob ?? ''), 'base64'), input.EncryptionContext);
      return { KeyId: keyArn, Plaintext: plaintext.toString('base64'), EncryptionAlgorithm: 'SYMMETRIC_DEFAULT' };
    },
  };

  const answer = (response: ServerResponse, status: number, body: unknown) => {
    response.writeHead(status, { 'content-type': 'application/x-amz-json-1.1' });
    response.end(JSON.stringify(body));
  };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(chunk as Buffer);
    const target = String(request.headers['x-amz-target'] ?? '');
    const operation = operations[target.replace(/^TrentService\./, '')];
    try {
      const verdict = await verifySignature(request, credentials, {
        service: 'kms',
        uriEscapePath: true,
        body: Buffer.concat(chunks),
      });
      if (!verdict.ok)
        throw new KmsFault(AUTH_ERRORS[verdict.reason][1], verdict.message, AUTH_ERRORS[verdict.reason][0]);
      if (request.method !== 'POST' || !target.startsWith('TrentService.') || !operation)
        throw new KmsFault('UnknownOperationException', `Unsupported operation ${target}`);
      let input: Record<string, unknown>;
      try {
        input = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}');
      } catch {
        throw new KmsFault('SerializationException', 'The request body is not JSON');
      }
      answer(response, 200, operation(input));
    } catch (error) {
      const fault = error instanceof KmsFault ? error : new KmsFault('KMSInternalException', String(error), 500);
      answer(response, fault.status, { __type: fault.type, message: fault.message });
    }
  };

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { server, endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, keyArn };
}
