/**
 * Ed25519 webhook signatures (Standard Webhooks `v1a`) against the shared local runtime, through
 * the official SDK and HTTP: a webhook created with `signature_algorithm: "ed25519"` shows a
 * `whpk_` public key (never a secret), its deliveries carry `v1a,` signatures that the spec's
 * reference verification (node:crypto, the key read from its 32 raw bytes as a JWK, not through
 * the service's code) accepts, and a rotation signs with the old and the new key side by side.
 *
 * The `standardwebhooks` package (1.1.1, the one the SDK's `webhooks.verify` uses) verifies only
 * `v1` (HMAC): it skips every other version, so it cannot check these deliveries (docs/api.md).
 */
import { createPublicKey, verify, type KeyObject } from 'node:crypto';
import { Resend, type CreateWebhookOptions } from 'resend';
import { api, baseUrl } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { type Receipt, WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();

const PUBLIC_KEY = /^whpk_[A-Za-z0-9+/]{43}=$/;
/** generous: the machine has two cores and other suites run beside this one */
const SLOW = 40_000;

let rx: WebhookReceiver;
beforeAll(async () => {
  rx = await new WebhookReceiver().start();
});
afterAll(() => rx.stop());

/** A `whpk_` key as a receiver would load it: its 32 raw bytes as an OKP JWK. */
const publicKeyOf = (whpk: string): KeyObject =>
  createPublicKey({
    key: { kty: 'OKP', crv: 'Ed25519', x: Buffer.from(whpk.slice('whpk_'.length), 'base64').toString('base64url') },
    format: 'jwk',
  });

/** The spec's reference verification: some `v1a,` signature of `<id>.<timestamp>.<body>` verifies with `key`. */
function verifiesWith(receipt: Receipt, key: KeyObject, body = receipt.body): boolean {
  const signed = Buffer.from(`${receipt.headers['webhook-id']}.${receipt.headers['webhook-timestamp']}.${body}`);
  return String(receipt.headers['webhook-signature'])
    .split(' ')
    .filter((s) => s.startsWith('v1a,'))
    .some((s) => verify(null, signed, key, Buffer.from(s.slice('v1a,'.length), 'base64')));
}

const contactCreated = (email: string) =>
  waitFor(
    async () => rx.receipts.filter((r) => r.json?.type === 'contact.created' && r.json.data.email === email),
    (found) => found.length > 0,
    SLOW,
  ).then((found) => found[0]);

describe('Ed25519 webhook signatures', () => {
  it('creates an ed25519 webhook through the SDK with a whpk_ public key and signs its deliveries v1a', async () => {
    const project = await createOtherProject();
    const sdk = new Resend(project.key, { baseUrl: baseUrl() });
    // the SDK sends its argument as the body: fields its type does not name go along
    const options = { endpoint: rx.url, events: ['contact.created'], signature_algorithm: 'ed25519' };
    const created = await sdk.webhooks.create(options as CreateWebhookOptions);
    expect(created.error).toBeNull();
    const hook = created.data as unknown as Record<string, any>;
    expect(hook).toMatchObject({
      object: 'webhook',
      signature_algorithm: 'ed25519',
      public_key: expect.stringMatching(PUBLIC_KEY),
      signing_secret: null,
      include_content: false,
    });
    expect(Buffer.from(hook.public_key.slice(5), 'base64')).toHaveLength(32);
    expect(hook.secret_prefix).toBe(hook.public_key.slice(0, 10));

    // get and list show the public key (it is not a secret)
    const got = await api.get(`/webhooks/${hook.id}`, { key: project.key });
    expect(got).toMatchObject({ status: 200, body: { public_key: hook.public_key, signature_algorithm: 'ed25519' } });
    const listed = await api.get('/webhooks', { key: project.key });
    expect(listed.body.data).toEqual([got.body]);

    const email = `ed.${Date.now().toString(36)}@example.com`;
    expect((await sdk.contacts.create({ email })).error).toBeNull();
    const receipt = await contactCreated(email);
    const signature = String(receipt.headers['webhook-signature']);
    expect(signature).toMatch(/^v1a,[A-Za-z0-9+/]{86}==$/); // one 64-byte signature
    expect(receipt.headers['svix-signature']).toBe(signature);
    expect(receipt.headers['svix-id']).toBe(receipt.headers['webhook-id']);
    expect(verifiesWith(receipt, publicKeyOf(hook.public_key))).toBe(true);
    expect(verifiesWith(receipt, publicKeyOf(hook.public_key), receipt.body.replace(email, `x${email}`))).toBe(false);
    // another webhook's key does not verify it
    const other = await api.post(
      '/webhooks',
      { endpoint: 'https://hooks.example.com/other', events: ['domain.created'], signature_algorithm: 'ed25519' },
      { key: project.key },
    );
    expect(other.body.public_key).not.toBe(hook.public_key);
    expect(verifiesWith(receipt, publicKeyOf(other.body.public_key))).toBe(false);
  });

  it('rotates to a new key pair and signs with both keys during the overlap', async () => {
    const project = await createOtherProject();
    const created = await api.post(
      '/webhooks',
      { endpoint: rx.url, events: ['contact.created'], signature_algorithm: 'ed25519' },
      { key: project.key },
    );
    expect(created.status).toBe(201);
    const rotated = await api.post(`/webhooks/${created.body.id}/signing-secret/rotate`, undefined, {
      key: project.key,
    });
    expect(rotated).toMatchObject({
      status: 200,
      body: { id: created.body.id, signature_algorithm: 'ed25519', signing_secret: null },
    });
    expect(rotated.body.public_key).toMatch(PUBLIC_KEY);
    expect(rotated.body.public_key).not.toBe(created.body.public_key);
    expect((await api.get(`/webhooks/${created.body.id}`, { key: project.key })).body.public_key).toBe(
      rotated.body.public_key,
    );

    const email = `rot.${Date.now().toString(36)}@example.com`;
    expect((await api.post('/contacts', { email }, { key: project.key })).status).toBe(201);
    const receipt = await contactCreated(email);
    const signatures = String(receipt.headers['webhook-signature']).split(' ');
    expect(signatures).toHaveLength(2);
    expect(signatures.every((s) => s.startsWith('v1a,'))).toBe(true);
    expect(verifiesWith(receipt, publicKeyOf(rotated.body.public_key))).toBe(true);
    expect(verifiesWith(receipt, publicKeyOf(created.body.public_key))).toBe(true);
  });

  it('keeps HMAC the default and refuses an unknown algorithm with 422', async () => {
    const project = await createOtherProject();
    const hmac = await api.post(
      '/webhooks',
      { endpoint: 'https://hooks.example.com/in', events: ['domain.created'] },
      { key: project.key },
    );
    expect(hmac).toMatchObject({
      status: 201,
      body: { signature_algorithm: 'hmac_sha256', public_key: null, signing_secret: expect.stringMatching(/^whsec_/) },
    });
    const bad = await api.post(
      '/webhooks',
      { endpoint: 'https://hooks.example.com/in', events: ['domain.created'], signature_algorithm: 'rsa' },
      { key: project.key },
    );
    expect(bad).toMatchObject({ status: 422, body: { errors: [{ path: 'signature_algorithm' }] } });
    // the algorithm is chosen at creation: PATCH does not take it
    const patched = await api.patch(
      `/webhooks/${hmac.body.id}`,
      { signature_algorithm: 'ed25519' },
      { key: project.key },
    );
    expect(patched.status).toBe(422);
  });
});
