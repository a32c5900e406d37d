/**
 * Sealed secrets (shared/platform/secrets.ts) and what they stand on: the two hand-signed KMS calls
 * (shared/platform/aws/kms.ts) against what the real `@aws-sdk/client-kms` puts on the wire, the
 * local KMS stand-in (local/aws/kms.ts) against the real client, and the local runtime's
 * refusal of a KMS call outside a function's `secretsKey` need or without the key's context.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DecryptCommand, GenerateDataKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import type { HttpRequest } from '@smithy/types';
import { startLocalKms, type LocalKms } from '../../local/aws/kms';
import { captureFetch } from '../support/capture-fetch';
import { checkCall } from '../../local/lambda/needs';
import type { Invocation } from '../../local/lambda/invocation';
import { installAwsCallChecker, type AwsCall } from '../../shared/platform/aws/call-guard';
import { decryptDataKey, generateDataKey } from '../../shared/platform/aws/kms';
import { SECRETS_KEY_CONTEXT } from '../../shared/platform/aws/secrets-key';
import { isSealed, openSecret, sealSecret } from '../../shared/platform/secrets';

const credentials = { accessKeyId: 'AKIDEXAMPLE', secretAccessKey: 'wJalrXUtnFEMI/K7MDENG+bPxRfiCYEXAMPLEKEY' };
const saved = { ...process.env };
let root: string;
let kms: LocalKms;

beforeAll(async () => {
  root = mkdtempSync(join(tmpdir(), 'secrets-kms-'));
  kms = await startLocalKms(root, 'ap-southeast-2', credentials);
  Object.assign(process.env, {
    AWS_REGION: 'ap-southeast-2',
    AWS_ACCESS_KEY_ID: credentials.accessKeyId,
    AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
    AWS_ENDPOINT_URL_KMS: kms.endpoint,
    SECRETS_KEY_ARN: kms.keyArn,
  });
  delete process.env.AWS_SESSION_TOKEN;
});
afterAll(async () => {
  installAwsCallChecker(undefined);
  process.env = saved;
  await new Promise((resolve) => kms.server.close(resolve));
  rmSync(root, { recursive: true, force: true });
});

const sdk = (endpoint?: string, requestHandler?: KMSClient['config']['requestHandler']) =>
  new KMSClient({
    region: 'ap-southeast-2',
    credentials,
    ...(endpoint ? { endpoint } : {}),
    ...(requestHandler ? { requestHandler } : {}),
  });

describe('the hand-signed KMS calls', () => {
  /** What the SDK would put on the wire, captured instead of sent. */
  async function sdkRequest(command: GenerateDataKeyCommand | DecryptCommand): Promise<HttpRequest> {
    let captured: HttpRequest | undefined;
    const handler = {
      handle: async (request: HttpRequest) => ((captured = request), Promise.reject(new Error('captured'))),
    };
    await sdk(undefined, handler as never)
      .send(command as never)
      .catch(() => undefined);
    return captured!;
  }

  /** What ours puts on the wire, captured from fetch (with a KMS-shaped answer). */
  const ourRequest = (call: () => Promise<unknown>) =>
    captureFetch(
      call,
      () =>
        new Response(JSON.stringify({ Plaintext: Buffer.alloc(32).toString('base64'), CiphertextBlob: 'AAAA' }), {
          status: 200,
        }),
    );

  it.each([
    [
      'GenerateDataKey',
      () =>
        new GenerateDataKeyCommand({
          KeyId: process.env.SECRETS_KEY_ARN,
          KeySpec: 'AES_256',
          EncryptionContext: { ...SECRETS_KEY_CONTEXT },
        }),
      () => generateDataKey(),
    ],
    [
      'Decrypt',
      () =>
        new DecryptCommand({
          CiphertextBlob: Buffer.from('blob'),
          KeyId: process.env.SECRETS_KEY_ARN,
          EncryptionContext: { ...SECRETS_KEY_CONTEXT },
        }),
      () => decryptDataKey(Buffer.from('blob')),
    ],
  ])(
    '%s sends what the SDK sends: the regional host, the target, the JSON body, signed for kms',
    async (_name, command, call) => {
      const endpoint = process.env.AWS_ENDPOINT_URL_KMS;
      delete process.env.AWS_ENDPOINT_URL_KMS;
      try {
        const theirs = await sdkRequest(command());
        const ours = await ourRequest(call);
        expect(ours.method).toBe(theirs.method);
        expect(ours.url.hostname).toBe(theirs.hostname);
        expect(ours.url.hostname).toBe('kms.ap-southeast-2.amazonaws.com');
        expect(ours.url.pathname).toBe(theirs.path);
        expect(ours.headers['x-amz-target']).toBe(theirs.headers['x-amz-target']);
        expect(ours.headers['content-type']).toBe(theirs.headers['content-type']);
        expect(JSON.parse(ours.body)).toEqual(JSON.parse(String(theirs.body)));
        const scope = (auth: string) => /Credential=([^,]+)/.exec(auth)?.[1];
        expect(scope(ours.headers.authorization)).toBe(scope(String(theirs.headers.authorization)));
        expect(scope(ours.headers.authorization)).toMatch(/^AKIDEXAMPLE\/\d{8}\/ap-southeast-2\/kms\/aws4_request$/);
      } finally {
        process.env.AWS_ENDPOINT_URL_KMS = endpoint;
      }
    },
  );
});

describe('the local KMS stand-in', () => {
  it('answers the real client: a data key opens with its context, and not with another context or key', async () => {
    const client = sdk(kms.endpoint);
    const made = await client.send(
      new GenerateDataKeyCommand({ KeyId: kms.keyArn, KeySpec: 'AES_256', EncryptionContext: { purpose: 'a' } }),
    );
    expect(made.Plaintext).toHaveLength(32);
    const opened = await client.send(
      new DecryptCommand({ CiphertextBlob: made.CiphertextBlob, EncryptionContext: { purpose: 'a' } }),
    );
    expect(Buffer.from(opened.Plaintext!).equals(Buffer.from(made.Plaintext!))).toBe(true);
    await expect(
      client.send(new DecryptCommand({ CiphertextBlob: made.CiphertextBlob, EncryptionContext: { purpose: 'b' } })),
    ).rejects.toMatchObject({ name: 'InvalidCiphertextException' });
    await expect(
      client.send(
        new DecryptCommand({
          CiphertextBlob: made.CiphertextBlob,
          KeyId: 'arn:aws:kms:ap-southeast-2:000000000000:key/other',
          EncryptionContext: { purpose: 'a' },
        }),
      ),
    ).rejects.toMatchObject({
      name: 'IncorrectKeyException',
    });
    client.destroy();
  });

  it('keeps its key material under the data folder, readable by the owner only, across restarts', async () => {
    const sealed = await sealSecret('whsec_restart', 'place');
    const again = await startLocalKms(root, 'ap-southeast-2', credentials);
    try {
      expect(statSync(join(root, `${kms.keyArn.split('/').pop()}.key`)).mode & 0o777).toBe(0o600);
      const client = sdk(again.endpoint);
      const blob = Buffer.from(sealed.split('.')[1], 'base64url');
      const opened = await client.send(
        new DecryptCommand({ CiphertextBlob: blob, EncryptionContext: { ...SECRETS_KEY_CONTEXT } }),
      );
      expect(opened.Plaintext).toHaveLength(32);
      client.destroy();
    } finally {
      await new Promise((resolve) => again.server.close(resolve));
    }
  });
});

describe('sealed secrets', () => {
  it('open where they were sealed, and the stored form shows nothing of the secret', async () => {
    const secret = 'whsec_c2VjcmV0LXZhbHVlLW9mLTMyLWJ5dGVzLWxvbmctLS0=';
    const sealed = await sealSecret(secret, 'webhook:p1:w1');
    expect(isSealed(sealed)).toBe(true);
    expect(sealed).not.toContain(secret.slice(6, 20));
    expect(await openSecret(sealed, 'webhook:p1:w1')).toBe(secret);
  });

  it('do not open in another place, or altered', async () => {
    const sealed = await sealSecret('whsec_abc', 'webhook:p1:w1');
    await expect(openSecret(sealed, 'webhook:p1:w2')).rejects.toThrow();
    const parts = sealed.split('.');
    const body = Buffer.from(parts[3], 'base64url');
    body[0] ^= 1;
    await expect(
      openSecret([...parts.slice(0, 3), body.toString('base64url')].join('.'), 'webhook:p1:w1'),
    ).rejects.toThrow();
  });

  it('a value stored before sealing existed is read as it is', async () => {
    expect(await openSecret('whsec_plainOldSecret', 'webhook:p1:w1')).toBe('whsec_plainOldSecret');
  });

  it("one data key seals a process's secrets (one GenerateDataKey), and one Decrypt opens them all", async () => {
    const calls: AwsCall[] = [];
    installAwsCallChecker((call) => void calls.push(call));
    try {
      const sealed = await Promise.all(['a', 'b', 'c', 'd'].map((s) => sealSecret(`whsec_${s}`, `place-${s}`)));
      expect(new Set(sealed.map((s) => s.split('.')[1])).size).toBe(1);
      expect(await Promise.all(sealed.map((s, i) => openSecret(s, `place-${'abcd'[i]}`)))).toEqual([
        'whsec_a',
        'whsec_b',
        'whsec_c',
        'whsec_d',
      ]);
      expect(calls.filter((c) => c.operation === 'GenerateDataKey').length).toBeLessThanOrEqual(1);
      expect(calls.filter((c) => c.operation === 'Decrypt').length).toBeLessThanOrEqual(1);
    } finally {
      installAwsCallChecker(undefined);
    }
  });
});

describe("the local runtime's check of KMS calls", () => {
  beforeEach(() => jest.spyOn(console, 'error').mockImplementation(() => undefined)); // the runtime logs each refusal
  afterEach(() => jest.restoreAllMocks());
  const invocation = (secretsKey?: 'encrypt' | 'decrypt' | 'encrypt-decrypt'): Invocation => ({
    fn: { name: 'TestFunction', needs: { secretsKey }, timeoutMs: 1000 },
    timedOut: false,
  });
  const call = (
    operation: string,
    context: Record<string, string> = { ...SECRETS_KEY_CONTEXT },
    keyId = process.env.SECRETS_KEY_ARN,
  ): AwsCall => ({
    service: 'kms',
    operation,
    input: { KeyId: keyId, EncryptionContext: context },
  });

  it('allows what the need grants and refuses the rest with AccessDeniedException', () => {
    expect(() => checkCall(invocation('encrypt'), call('GenerateDataKey'))).not.toThrow();
    expect(() => checkCall(invocation('encrypt'), call('Decrypt'))).toThrow(
      expect.objectContaining({ name: 'AccessDeniedException' }),
    );
    expect(() => checkCall(invocation('decrypt'), call('Decrypt'))).not.toThrow();
    expect(() => checkCall(invocation('decrypt'), call('GenerateDataKey'))).toThrow(
      expect.objectContaining({ name: 'AccessDeniedException' }),
    );
    expect(() => checkCall(invocation(), call('Decrypt'))).toThrow(
      expect.objectContaining({ name: 'AccessDeniedException' }),
    );
  });

  it("refuses the key without its encryption context, and another key, as the stack grant's condition does", () => {
    expect(() => checkCall(invocation('encrypt-decrypt'), call('Decrypt', {}))).toThrow(
      expect.objectContaining({ name: 'AccessDeniedException' }),
    );
    expect(() => checkCall(invocation('encrypt-decrypt'), call('Decrypt', { purpose: 'other' }))).toThrow(
      expect.objectContaining({ name: 'AccessDeniedException' }),
    );
    expect(() =>
      checkCall(
        invocation('encrypt-decrypt'),
        call('Decrypt', undefined, 'arn:aws:kms:ap-southeast-2:000000000000:key/other'),
      ),
    ).toThrow(expect.objectContaining({ name: 'AccessDeniedException' }));
  });
});
