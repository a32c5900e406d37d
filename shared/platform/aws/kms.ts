/**
 * The two KMS calls the service makes, for the envelope encryption of the secrets it keeps in the
 * table (shared/platform/secrets.ts): GenerateDataKey (a fresh AES-256 key, in plaintext and
 * encrypted under the secrets key) and Decrypt (a data key back from its encrypted form).
 *
 * Why not `@aws-sdk/client-kms`: for the same reason as S3 (./s3.ts), two JSON calls signed with
 * the SDK's own SigV4 signer cost a few hundred bytes, the client tens of KB in every function that
 * touches a webhook. test/unit/kms.test.ts checks each request against what the real client sends
 * and the local stand-in (local/aws/kms.ts) against the real client.
 *
 * The key is `SECRETS_KEY_ARN` (./secrets-key.ts), every call with its encryption context; the
 * endpoint is the SDK's own `AWS_ENDPOINT_URL_KMS` when set, else the regional one.
 */
import { SignatureV4 } from '@smithy/signature-v4';
import { checkAwsCall } from './call-guard';
import { SECRETS_KEY_CONTEXT, secretsKeyArn } from './secrets-key';
import { Sha256 } from './sha256';
import { awsRegion } from './region';
import { AwsCallError, signingCredentials } from './signed-calls';

/** KMS answered an error (`code` is its `__type`: `InvalidCiphertextException`, `AccessDeniedException`...). */
export class KmsError extends AwsCallError {
  override name = 'KmsError';
}

let signer: SignatureV4 | undefined;
const kmsSigner = () =>
  (signer ??= new SignatureV4({
    service: 'kms',
    region: awsRegion(),
    credentials: signingCredentials,
    sha256: Sha256,
  }));

/** A KMS JSON 1.1 call, as the SDK sends it: POST / with the operation in `x-amz-target`. */
async function call<T>(operation: 'GenerateDataKey' | 'Decrypt', input: Record<string, unknown>): Promise<T> {
  checkAwsCall({ service: 'kms', operation, input });
  const url = new URL(process.env.AWS_ENDPOINT_URL_KMS || `https://kms.${awsRegion()}.amazonaws.com`);
  const body = JSON.stringify(input);
  const signed = await kmsSigner().sign({
    method: 'POST',
    protocol: url.protocol,
    hostname: url.hostname,
    port: url.port ? Number(url.port) : undefined,
    path: url.pathname || '/',
    query: {},
    headers: {
      host: url.host,
      'content-type': 'application/x-amz-json-1.1',
      'x-amz-target': `TrentService.${operation}`,
    },
    body,
  });
  const headers = { ...signed.headers };
  delete headers.host; // fetch sets it from the URL
  const response = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(10_000) });
  const text = await response.text();
  if (!response.ok) {
    let parsed: { __type?: string; message?: string; Message?: string } = {};
    try {
      parsed = JSON.parse(text);
    } catch {}
    const code = (response.headers.get('x-amzn-errortype') ?? parsed.__type ?? `HTTP${response.status}`)
      .split(':')[0]
      .split('#')
      .pop() as string;
    throw new KmsError(
      response.status,
      code,
      `KMS ${operation}: ${code} ${parsed.message ?? parsed.Message ?? ''}`.trim(),
    );
  }
  return JSON.parse(text) as T;
}

export interface DataKey {
  plaintext: Buffer;
  /** the data key encrypted under the secrets key: what is stored beside what it encrypts */
  ciphertext: Buffer;
}

/** A fresh AES-256 data key under the secrets key. */
export async function generateDataKey(): Promise<DataKey> {
  const input = { KeyId: secretsKeyArn(), KeySpec: 'AES_256', EncryptionContext: SECRETS_KEY_CONTEXT };
  const output = await call<{ Plaintext: string; CiphertextBlob: string }>('GenerateDataKey', input);
  return {
    plaintext: Buffer.from(output.Plaintext, 'base64'),
    ciphertext: Buffer.from(output.CiphertextBlob, 'base64'),
  };
}

/** The plaintext of a data key `generateDataKey` made. */
export async function decryptDataKey(ciphertext: Buffer): Promise<Buffer> {
  const output = await call<{ Plaintext: string }>('Decrypt', {
    CiphertextBlob: ciphertext.toString('base64'),
    KeyId: secretsKeyArn(),
    EncryptionContext: SECRETS_KEY_CONTEXT,
  });
  return Buffer.from(output.Plaintext, 'base64');
}
