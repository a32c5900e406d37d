/**
 * Webhooks over real HTTP against a local runtime of this file's own (test/support/own-runtime.ts),
 * delivering to receivers on 127.0.0.1 that each test starts (the runtime allows plain http to
 * loopback; nothing else is contacted). Its retry schedule is WEBHOOK_RETRY_SCHEDULE_SECONDS=1,1,1:
 * 4 attempts, a second apart. A runtime of its own so that a test can wait for the whole pipeline
 * to settle (`drain`) before it checks that a delivery did NOT happen. Tests that count deliveries
 * still use a project of their own, so no other test's events reach them.
 */
import { readFileSync } from 'node:fs';
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import { join } from 'node:path';
import type { AddressInfo } from 'node:net';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { api } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

const runtime = useOwnRuntime(
  {
    WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1', // 4 attempts, a second apart
    API_RATE_LIMIT_PER_SECOND: '1000', // tests create 30 API keys or 25 webhooks at once
  },
  { forFile: true },
);
// the table of this file's runtime (its DATA_DIR is TEST_DATA_DIR once the runtime started)
beforeAll(() => {
  useRuntimeTable();
});

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MISSING = '01890a5d-ac96-774b-bcce-b302099a8057';
let counter = 0;
const uniqueDomain = () => `hooks-${Date.now().toString(36)}-${counter++}.example.com`;

interface Receipt {
  headers: IncomingHttpHeaders;
  body: string;
  json: any;
  at: number;
}

/** An HTTP receiver on 127.0.0.1 that records every request and answers `status` (changeable). */
class Receiver {
  readonly receipts: Receipt[] = [];
  status = 200;
  /** how long to wait before answering */
  delayMs = 0;
  private server?: Server;
  url = '';

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks).toString('utf8');
        this.receipts.push({ headers: req.headers, body, json: JSON.parse(body), at: Date.now() });
        // a slow endpoint on purpose: machine time, as the delivery's HTTP timeout measures it
        setTimeout(() => res.writeHead(this.status, { 'content-type': 'text/plain' }).end('ok'), this.delayMs);
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/hook`;
    return this;
  }

  of(type: string, predicate: (r: Receipt) => boolean = () => true) {
    return this.receipts.filter((r) => r.json.type === type && predicate(r));
  }

  async stop(): Promise<void> {
    await new Promise((resolve) => {
      this.server?.close(resolve);
      this.server?.closeAllConnections();
    });
  }
}

const receivers: Receiver[] = [];
const receiver = async () => {
  const r = await new Receiver().start();
  receivers.push(r);
  return r;
};
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});

async function createWebhook(body: Record<string, unknown>, key?: string) {
  const res = await api.post('/webhooks', body, { key });
  expect(res.status).toBe(201);
  return res.body;
}

const deliveriesOf = async (webhookId: string, key?: string) =>
  (await api.get(`/webhooks/${webhookId}/deliveries`, { key })).body.data;

describe('webhook CRUD', () => {
  it('creates a pending webhook with a signing secret shown once, and gets, lists, updates and deletes it', async () => {
    const other = await createOtherProject();
    const created = await api.post(
      '/webhooks',
      {
        endpoint: 'https://hooks.example.com/in',
        events: ['domain.created', 'email.sent', 'email.sent'],
        description: 'ops',
      },
      { key: other.key },
    );
    expect(created.status).toBe(201);
    const webhook = {
      object: 'webhook',
      id: expect.stringMatching(ID),
      api_version: '2026-08-14',
      endpoint: 'https://hooks.example.com/in',
      events: ['domain.created', 'email.sent'],
      description: 'ops',
      status: 'pending',
      secret_prefix: created.body.signing_secret.slice(0, 10),
      signature_algorithm: 'hmac_sha256',
      public_key: null,
      include_content: false,
      consecutive_failures: 0,
      last_success_at: null,
      last_failure_at: null,
      created_at: expect.stringMatching(TIME),
      updated_at: expect.stringMatching(TIME),
    };
    expect(created.body).toEqual({ ...webhook, signing_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) });
    expect(Buffer.from(created.body.signing_secret.slice(6), 'base64')).toHaveLength(32);
    const { id } = created.body;

    const got = await api.get(`/webhooks/${id}`, { key: other.key });
    expect(got).toMatchObject({ status: 200, body: webhook });
    expect(got.body).not.toHaveProperty('signing_secret');
    const list = await api.get('/webhooks', { key: other.key });
    expect(list.body).toEqual({ object: 'list', data: [got.body], has_more: false });

    const patched = await api.patch(
      `/webhooks/${id}`,
      { events: ['email.bounced'], description: null },
      { key: other.key },
    );
    expect(patched).toMatchObject({ status: 200, body: { ...webhook, events: ['email.bounced'], description: null } });
    const disabled = await api.patch(`/webhooks/${id}`, { status: 'disabled' }, { key: other.key });
    expect(disabled.body.status).toBe('disabled');
    const enabled = await api.patch(`/webhooks/${id}`, { status: 'enabled' }, { key: other.key });
    expect(enabled.body.status).toBe('enabled');

    expect(await api.delete(`/webhooks/${id}`, { key: other.key })).toMatchObject({
      status: 200,
      body: { object: 'webhook', id, deleted: true },
    });
    expect(await api.delete(`/webhooks/${id}`, { key: other.key })).toMatchObject({
      status: 404,
      body: { name: 'not_found' },
    });
    expect((await api.get(`/webhooks/${id}`, { key: other.key })).status).toBe(404);

    // every change wrote its event, with the webhook as the API shows it (never the secret)
    const events = (await api.get('/events', { key: other.key })).body.data.filter((e: any) => e.data.object.id === id);
    expect(events.map((e: any) => e.type)).toEqual([
      'webhook.endpoint.deleted',
      'webhook.endpoint.updated',
      'webhook.endpoint.disabled',
      'webhook.endpoint.updated',
      'webhook.endpoint.created',
    ]);
    expect(JSON.stringify(events)).not.toContain(created.body.signing_secret);
    expect(events[2].data.object.status).toBe('disabled');
  });

  it('refuses invalid bodies with 422 naming each bad value', async () => {
    const bad = await api.post('/webhooks', {
      endpoint: 'http://hooks.example.com/in',
      events: ['domain.created', 'domain.exploded'],
      extra: 1,
    });
    expect(bad.status).toBe(422);
    expect(bad.body.name).toBe('validation_error');
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['endpoint', 'events.1', 'extra']);
    expect(bad.body.errors.find((e: any) => e.path === 'endpoint').message).toMatch(/https/);

    const cases: [unknown, string][] = [
      [{ events: ['domain.created'] }, 'endpoint'],
      [{ endpoint: 'not a url', events: ['domain.created'] }, 'endpoint'],
      [{ endpoint: 'ftp://hooks.example.com/', events: ['domain.created'] }, 'endpoint'],
      [{ endpoint: 'https://user:pw@hooks.example.com/', events: ['domain.created'] }, 'endpoint'],
      [{ endpoint: 'https://hooks.example.com/' }, 'events'],
      [{ endpoint: 'https://hooks.example.com/', events: [] }, 'events'],
      [{ endpoint: 'https://hooks.example.com/', events: 'domain.created' }, 'events'],
      [
        { endpoint: 'https://hooks.example.com/', events: ['domain.created'], description: 'x'.repeat(257) },
        'description',
      ],
    ];
    for (const [body, path] of cases) {
      const res = await api.post('/webhooks', body);
      expect({ body, status: res.status, paths: res.body.errors?.map((e: any) => e.path) }).toEqual({
        body,
        status: 422,
        paths: [path],
      });
    }
    // plain http is fine to loopback in the local runtime
    const local = await api.post('/webhooks', { endpoint: 'http://127.0.0.1:9/hook', events: ['domain.created'] });
    expect(local.status).toBe(201);
    await api.delete(`/webhooks/${local.body.id}`);
  });

  it('validates PATCH bodies and path ids', async () => {
    const hook = await createWebhook({ endpoint: 'https://hooks.example.com/patch', events: ['domain.created'] });
    const empty = await api.patch(`/webhooks/${hook.id}`, {});
    expect(empty.status).toBe(422);
    const bad = await api.patch(`/webhooks/${hook.id}`, { status: 'pending', endpoint: 'http://example.com' });
    expect(bad.body.errors.map((e: any) => e.path).sort()).toEqual(['endpoint', 'status']);
    expect((await api.get('/webhooks/not-an-id')).body.errors[0].path).toBe('webhookId');
    expect((await api.get(`/webhooks/${MISSING}`)).status).toBe(404);
    expect((await api.patch(`/webhooks/${MISSING}`, { description: 'x' })).status).toBe(404);
    await api.delete(`/webhooks/${hook.id}`);
  });
});

describe("the local runtime's own services", () => {
  // issue 16: a webhook to the mail viewer's /clear-store was accepted and delivered (it wiped the viewer)
  it('refuses, with 422, an endpoint on any port of the runtime itself, whatever the host spells it', async () => {
    const info = JSON.parse(readFileSync(join(process.env.TEST_DATA_DIR!, 'runtime.json'), 'utf8'));
    const portOf = (url: string) => Number(new URL(url).port);
    const ports = new Set<number>([
      portOf(info.apiUrl),
      portOf(info.dynamoDbEndpoint),
      portOf(info.sqsEndpoint),
      portOf(info.sesEndpoint),
      portOf(info.mailViewerUrl),
      portOf(info.s3Endpoint),
      info.smtpPort,
      ...Object.values<number>(info.ports ?? {}),
    ]);
    for (const port of ports) {
      for (const endpoint of [
        `http://127.0.0.1:${port}/clear-store`,
        `http://localhost.:${port}/`,
        `http://[::1]:${port}/`,
        `https://127.0.0.1:${port}/`,
      ]) {
        const res = await api.post('/webhooks', { endpoint, events: ['email.sent'] });
        expect({ endpoint, status: res.status, message: res.body.errors?.[0]?.message }).toEqual({
          endpoint,
          status: 422,
          message: expect.stringMatching(/local runtime's own services/),
        });
      }
    }
    // a receiver of one's own on loopback stays allowed
    const receiver = await new Receiver().start();
    const ok = await api.post('/webhooks', { endpoint: receiver.url, events: ['email.sent'] });
    expect(ok.status).toBe(201);
    await api.delete(`/webhooks/${ok.body.id}`);
    await receiver.stop();
  });
});

describe('webhook deliveries', () => {
  it('delivers domain.created within seconds, signed so that the standardwebhooks package verifies it', async () => {
    const other = await createOtherProject();
    const rx = await receiver();
    const hook = await createWebhook({ endpoint: rx.url, events: ['domain.created'] }, other.key);
    const domain = (await api.post('/domains', { name: uniqueDomain() }, { key: other.key })).body;

    const [receipt] = await waitFor(
      async () => rx.of('domain.created', (r) => r.json.data.object.id === domain.id),
      (r) => r.length > 0,
      10_000,
    );
    const payload = new StandardWebhook(hook.signing_secret).verify(
      receipt.body,
      receipt.headers as Record<string, string>,
    ) as any;
    expect(payload).toMatchObject({
      object: 'event',
      type: 'domain.created',
      api_version: '2026-08-14',
      project_id: other.projectId,
      data: { object: { id: domain.id, name: domain.name } },
    });
    expect(receipt.headers['webhook-id']).toBe(payload.id);
    for (const name of ['id', 'timestamp', 'signature'])
      expect(receipt.headers[`svix-${name}`]).toBe(receipt.headers[`webhook-${name}`]);
    expect(() =>
      new StandardWebhook(hook.signing_secret).verify(
        receipt.body.replace('domain', 'DOMAIN'),
        receipt.headers as Record<string, string>,
      ),
    ).toThrow();

    // the delivery is recorded, and the first success makes the webhook enabled
    const [delivery] = await waitFor(
      () => deliveriesOf(hook.id, other.key),
      (d) => d[0]?.status === 'delivered',
    );
    expect(delivery).toEqual({
      object: 'webhook_delivery',
      id: expect.stringMatching(ID),
      webhook_id: hook.id,
      event_id: payload.id,
      event_type: 'domain.created',
      status: 'delivered',
      attempt_count: 1,
      response_code: 200,
      error: null,
      next_attempt_at: null,
      completed_at: expect.stringMatching(TIME),
      created_at: expect.stringMatching(TIME),
      updated_at: expect.stringMatching(TIME),
    });
    expect((await api.get(`/webhooks/${hook.id}/deliveries/${delivery.id}`, { key: other.key })).body).toEqual(
      delivery,
    );
    const after = (await api.get(`/webhooks/${hook.id}`, { key: other.key })).body;
    expect(after).toMatchObject({
      status: 'enabled',
      consecutive_failures: 0,
      last_success_at: expect.stringMatching(TIME),
      last_failure_at: null,
    });
    expect(rx.receipts).toHaveLength(1); // subscribed to domain.created only
  });

  it('retries a failing receiver on the schedule, ends failed, counts failures, and a manual retry makes one more attempt', async () => {
    const other = await createOtherProject();
    const rx = await receiver();
    rx.status = 500;
    const hook = await createWebhook({ endpoint: rx.url, events: ['api_key.created'] }, other.key);
    await api.post('/api-keys', { name: 'trigger' }, { key: other.key });

    const [failed] = await waitFor(
      () => deliveriesOf(hook.id, other.key),
      (d) => d[0]?.status === 'failed',
      20_000,
      200,
    );
    expect(failed).toMatchObject({
      status: 'failed',
      attempt_count: 4,
      response_code: 500,
      error: 'endpoint answered 500',
      next_attempt_at: null,
      completed_at: expect.stringMatching(TIME),
    });
    const attempts = rx.of('api_key.created');
    expect(attempts).toHaveLength(4);
    expect(new Set(attempts.map((a) => a.headers['webhook-id']))).toEqual(new Set([failed.event_id])); // the same id on every attempt
    for (let i = 1; i < attempts.length; i++) expect(attempts[i].at - attempts[i - 1].at).toBeGreaterThanOrEqual(900); // 1 s apart
    expect((await api.get(`/webhooks/${hook.id}`, { key: other.key })).body).toMatchObject({
      status: 'pending',
      consecutive_failures: 4,
      last_failure_at: expect.stringMatching(TIME),
      last_success_at: null,
    });

    rx.status = 204;
    const retried = await api.post(`/webhooks/${hook.id}/deliveries/${failed.id}/retry`, undefined, { key: other.key });
    expect(retried).toMatchObject({
      status: 202,
      body: { id: failed.id, status: 'pending', attempt_count: 4, completed_at: null },
    });
    const [delivered] = await waitFor(
      () => deliveriesOf(hook.id, other.key),
      (d) => d[0]?.status === 'delivered',
    );
    expect(delivered).toMatchObject({ attempt_count: 5, response_code: 204, error: null });
    expect(rx.of('api_key.created')).toHaveLength(5);
    expect((await api.get(`/webhooks/${hook.id}`, { key: other.key })).body).toMatchObject({
      status: 'enabled',
      consecutive_failures: 0,
    });

    // a delivered delivery can be sent again too: exactly one more attempt, once the pipeline has settled
    expect(
      (await api.post(`/webhooks/${hook.id}/deliveries/${failed.id}/retry`, undefined, { key: other.key })).status,
    ).toBe(202);
    await runtime.drain();
    expect(rx.of('api_key.created')).toHaveLength(6);
  }, 40_000);

  it('disables a webhook after 30 deliveries in a row failed, emitting webhook.endpoint.disabled', async () => {
    const other = await createOtherProject();
    const rx = await receiver();
    rx.status = 503;
    const hook = await createWebhook({ endpoint: rx.url, events: ['api_key.created'] }, other.key);
    await Promise.all(
      Array.from({ length: 30 }, (_, i) => api.post('/api-keys', { name: `k${i}` }, { key: other.key })),
    );
    const disabled = await waitFor(
      async () => (await api.get(`/webhooks/${hook.id}`, { key: other.key })).body,
      (w) => w.status === 'disabled',
      30_000,
      250,
    );
    expect(disabled.consecutive_failures).toBe(120);
    const events = (await api.get('/events', { key: other.key })).body.data.filter(
      (e: any) => e.type === 'webhook.endpoint.disabled',
    );
    expect(events).toHaveLength(1);
    expect(events[0].data.object).toMatchObject({ id: hook.id, status: 'disabled' });

    // no more deliveries while disabled; a retry is refused with 422
    const [delivery] = await deliveriesOf(hook.id, other.key);
    const refused = await api.post(`/webhooks/${hook.id}/deliveries/${delivery.id}/retry`, undefined, {
      key: other.key,
    });
    expect(refused).toMatchObject({
      status: 422,
      body: { name: 'validation_error', errors: [{ code: 'webhook_disabled', path: 'webhookId' }] },
    });
    const seen = rx.receipts.length;
    expect((await api.post('/api-keys', { name: 'after' }, { key: other.key })).status).toBe(201);
    await runtime.drain(); // the event went through the pipeline: it made no delivery
    expect(rx.receipts).toHaveLength(seen);
  }, 45_000);

  it('keeps the signing secret sealed in the table, and still signs with one stored plain before sealing existed', async () => {
    const other = await createOtherProject();
    const rx = await receiver();
    const hook = await createWebhook({ endpoint: rx.url, events: ['api_key.created'] }, other.key);
    const { getItem, updateItem, update } = await import('../../shared/platform/db/table');
    const keys = await import('../../shared/platform/db/keys');
    const stored = await getItem(keys.webhook(other.projectId, hook.id));
    expect(stored?.secret).toMatch(/^esk1\./);
    expect(JSON.stringify(stored)).not.toContain(hook.signing_secret.slice(6));

    await api.post('/api-keys', { name: 'sealed' }, { key: other.key });
    const [sealedReceipt] = await waitFor(
      async () => rx.of('api_key.created'),
      (r) => r.length > 0,
    );
    expect(() =>
      new StandardWebhook(hook.signing_secret).verify(
        sealedReceipt.body,
        sealedReceipt.headers as Record<string, string>,
      ),
    ).not.toThrow();

    // an item written before sealing: the secret as it was
    await updateItem(update(keys.webhook(other.projectId, hook.id), { set: { secret: hook.signing_secret } }));
    await api.post('/api-keys', { name: 'plain' }, { key: other.key });
    const [plainReceipt] = await waitFor(
      async () => rx.of('api_key.created', (r) => r.json.data.object.name === 'plain'),
      (r) => r.length > 0,
    );
    expect(() =>
      new StandardWebhook(hook.signing_secret).verify(
        plainReceipt.body,
        plainReceipt.headers as Record<string, string>,
      ),
    ).not.toThrow();
  });

  it('signs with the old and the new secret for a day after a rotation', async () => {
    const other = await createOtherProject();
    const rx = await receiver();
    const hook = await createWebhook({ endpoint: rx.url, events: ['api_key.created'] }, other.key);
    const rotated = await api.post(`/webhooks/${hook.id}/signing-secret/rotate`, undefined, { key: other.key });
    expect(rotated).toMatchObject({
      status: 200,
      body: { id: hook.id, signing_secret: expect.stringMatching(/^whsec_/) },
    });
    expect(rotated.body.signing_secret).not.toBe(hook.signing_secret);
    expect(rotated.body.secret_prefix).toBe(rotated.body.signing_secret.slice(0, 10));

    await api.post('/api-keys', { name: 'after-rotation' }, { key: other.key });
    const [receipt] = await waitFor(
      async () => rx.of('api_key.created'),
      (r) => r.length > 0,
    );
    expect(String(receipt.headers['webhook-signature']).split(' ')).toHaveLength(2);
    for (const secret of [hook.signing_secret, rotated.body.signing_secret]) {
      expect(() =>
        new StandardWebhook(secret).verify(receipt.body, receipt.headers as Record<string, string>),
      ).not.toThrow();
    }
    expect((await api.post(`/webhooks/${MISSING}/signing-secret/rotate`, undefined, { key: other.key })).status).toBe(
      404,
    );
  });

  it('answers 401, 404 and 422 on the retry route as the contract says', async () => {
    const hook = await createWebhook({ endpoint: 'https://hooks.example.com/retry', events: ['domain.created'] });
    const path = (w: string, d: string) => `/webhooks/${w}/deliveries/${d}/retry`;
    const unauthorized = await api.post(path(hook.id, MISSING), undefined, { key: 'es_live_nope' });
    expect(unauthorized).toMatchObject({
      status: 401,
      body: { name: 'validation_error', message: 'API key is invalid' },
    });
    expect(unauthorized.body).not.toHaveProperty('errors');
    expect(await api.post(path(MISSING, MISSING))).toMatchObject({
      status: 404,
      body: { name: 'not_found', errors: [{ path: 'webhookId' }] },
    });
    expect(await api.post(path(hook.id, MISSING))).toMatchObject({
      status: 404,
      body: { name: 'not_found', errors: [{ path: 'deliveryId' }] },
    });
    const malformed = await api.post(path('nope', 'also-nope'));
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors.map((e: any) => e.path).sort()).toEqual(['deliveryId', 'webhookId']);
    expect((await api.get(`/webhooks/${hook.id}/deliveries/${MISSING}`)).status).toBe(404);
    expect((await api.get(`/webhooks/${MISSING}/deliveries`)).status).toBe(404);
    expect((await api.get(`/webhooks/${hook.id}`, { key: 'es_live_nope' })).status).toBe(401);
    await api.delete(`/webhooks/${hook.id}`);
  });
});

describe('GET /webhook-events', () => {
  it('lists each delivery as a webhook event with its latest attempt, newest first, paged with limit and after', async () => {
    const other = await createOtherProject();
    const rx = await receiver();
    const hook = await createWebhook({ endpoint: rx.url, events: ['api_key.created', 'api_key.revoked'] }, other.key);
    const key = (await api.post('/api-keys', { name: 'listed' }, { key: other.key })).body;
    await api.delete(`/api-keys/${key.id}`, { key: other.key });
    await waitFor(
      () => deliveriesOf(hook.id, other.key),
      (d) => d.length === 2 && d.every((x: any) => x.status === 'delivered'),
    );

    const page = await waitFor(
      async () => (await api.get('/webhook-events', { key: other.key })).body,
      (b) => b.data.length === 2 && b.data.every((e: any) => e.attempt),
    );
    expect(page).toEqual({ object: 'list', data: expect.any(Array), has_more: false });
    expect(page.data.map((e: any) => e.type)).toEqual(['api_key.revoked', 'api_key.created']);
    const deliveries = await deliveriesOf(hook.id, other.key);
    expect(page.data[0]).toEqual({
      id: deliveries[0].id,
      webhook_id: hook.id,
      type: 'api_key.revoked',
      data: { object: expect.objectContaining({ id: key.id, name: 'listed' }) },
      created_at: expect.stringMatching(TIME),
      attempt: { number: 1, status: 'succeeded', response_code: 200, at: expect.stringMatching(TIME) },
    });

    const first = (await api.get('/webhook-events?limit=1', { key: other.key })).body;
    expect(first).toMatchObject({ has_more: true, data: [{ id: page.data[0].id }] });
    const second = (await api.get(`/webhook-events?limit=1&after=${first.data[0].id}`, { key: other.key })).body;
    expect(second).toMatchObject({ has_more: false, data: [{ id: page.data[1].id }] });
    expect((await api.get('/webhook-events?limit=0', { key: other.key })).status).toBe(422);
    expect((await api.get('/webhook-events', { key: 'es_live_nope' })).status).toBe(401);
  });

  it('shows an event whose first attempt is still running with attempt null', async () => {
    const other = await createOtherProject();
    const rx = await receiver();
    rx.delayMs = 3000;
    const hook = await createWebhook({ endpoint: rx.url, events: ['api_key.created'] }, other.key);
    await api.post('/api-keys', { name: 'slow' }, { key: other.key });
    const page = await waitFor(
      async () => (await api.get('/webhook-events', { key: other.key })).body,
      (b) => b.data.length === 1,
    );
    expect(page.data[0]).toMatchObject({ webhook_id: hook.id, type: 'api_key.created', attempt: null });
    await waitFor(
      async () => (await api.get('/webhook-events', { key: other.key })).body.data[0].attempt,
      (a) => a?.status === 'succeeded',
    );
  });
});

describe('isolation', () => {
  it("never shows or delivers one project's webhooks and events to another", async () => {
    const a = await createOtherProject();
    const b = await createOtherProject();
    const rx = await receiver();
    const hook = await createWebhook({ endpoint: rx.url, events: ['api_key.created'] }, a.key);
    expect((await api.get(`/webhooks/${hook.id}`, { key: b.key })).status).toBe(404);
    expect((await api.patch(`/webhooks/${hook.id}`, { description: 'mine' }, { key: b.key })).status).toBe(404);
    expect((await api.delete(`/webhooks/${hook.id}`, { key: b.key })).status).toBe(404);
    expect((await api.get(`/webhooks/${hook.id}/deliveries`, { key: b.key })).status).toBe(404);
    expect((await api.get('/webhooks', { key: b.key })).body.data).toEqual([]);

    expect((await api.post('/api-keys', { name: 'in-b' }, { key: b.key })).status).toBe(201);
    expect((await api.post('/api-keys', { name: 'in-a' }, { key: a.key })).status).toBe(201);
    await runtime.drain(); // both events went through the pipeline: A's webhook got A's, and only A's
    expect(rx.receipts.map((r) => `${r.json.project_id} ${r.json.data.object.name}`)).toEqual([`${a.projectId} in-a`]);
    const [delivery] = await deliveriesOf(hook.id, a.key);
    expect((await api.get(`/webhooks/${hook.id}/deliveries/${delivery.id}`, { key: b.key })).status).toBe(404);
    expect(
      (await api.post(`/webhooks/${hook.id}/deliveries/${delivery.id}/retry`, undefined, { key: b.key })).status,
    ).toBe(404);
    expect((await api.get('/webhook-events', { key: b.key })).body.data).toEqual([]);
  });
});

describe('webhooks per project', () => {
  const MAX = 20; // MAX_WEBHOOKS_PER_PROJECT's default; the test runtime does not set it
  const hook = (key: string) =>
    api.post('/webhooks', { endpoint: 'https://hooks.example.com/same', events: ['email.sent'] }, { key });
  const createdEvents = async (key: string) =>
    ((await api.get('/events', { key })).body.data as { type: string }[]).filter(
      (e) => e.type === 'webhook.endpoint.created',
    );

  it('are capped: creates racing past the limit get 409 webhook_limit_reached and write nothing; a delete frees a place', async () => {
    const project = await createOtherProject();
    const answers = await Promise.all(Array.from({ length: MAX + 5 }, () => hook(project.key)));
    expect(answers.map((r) => r.status).sort()).toEqual([...Array(MAX).fill(201), ...Array(5).fill(409)]);
    expect(answers.find((r) => r.status === 409)!.body).toEqual({
      name: 'application_error',
      statusCode: 409,
      message: expect.stringContaining(`at most ${MAX} webhooks`),
      errors: [{ code: 'webhook_limit_reached', message: expect.any(String), path: '' }],
    });
    const listed = (await api.get('/webhooks?limit=100', { key: project.key })).body.data;
    expect(listed).toHaveLength(MAX);
    expect(await createdEvents(project.key)).toHaveLength(MAX);

    expect((await api.delete(`/webhooks/${listed[0].id}`, { key: project.key })).status).toBe(200);
    expect((await hook(project.key)).status).toBe(201);
    expect((await hook(project.key)).status).toBe(409);
    expect((await api.get('/webhooks?limit=100', { key: project.key })).body.data).toHaveLength(MAX);
  });

  it("are counted per project: one project's webhooks leave another's places alone", async () => {
    const full = await createOtherProject();
    const other = await createOtherProject();
    for (let i = 0; i < MAX; i++) expect((await hook(full.key)).status).toBe(201);
    expect((await hook(full.key)).status).toBe(409);
    expect((await hook(other.key)).status).toBe(201);
  });
});
