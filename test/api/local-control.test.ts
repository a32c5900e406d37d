/**
 * The local runtime's control API (local/control.ts) on a runtime of its own: a drain waits for
 * the whole pipeline, so beside the shared runtime every other suite talks to it would wait for
 * them too.
 * - `POST /_local/drain` answers once an email sent a moment ago has settled: the sender, the SES
 *   stand-in's delayed delivery event and the status consumer included, so the email reads
 *   `delivered` right after, with no wait of the test's own; and 504 naming the worker that a
 *   webhook endpoint which never answers keeps busy.
 * - `POST /_local/run/<worker>` runs a scheduled worker now; `GET /_local/clock` tells the time.
 * - Only a full-access key of the runtime may use it.
 */
import { useOwnRuntime } from '../support/own-runtime';
import { hangingEndpoint, type UnresponsiveEndpoint } from '../support/unresponsive-endpoints';

const { call } = useOwnRuntime({ LOCAL_SCHEDULE_INTERVAL_SECONDS: '3600' });

/** A test-mode key of the runtime's project and a domain it may send from (test keys need no verified domain). */
async function sandbox(): Promise<{ key: string; domain: string }> {
  const created = await call('POST', '/api-keys', { name: 'control', mode: 'test' });
  expect(created.status).toBe(201);
  const key = created.body.token as string;
  const domain = `control-${Date.now().toString(36)}.example.com`;
  expect((await call('POST', '/domains', { name: domain }, key)).status).toBe(201);
  return { key, domain };
}

describe('the local control API', () => {
  it('takes only a full-access key of the runtime', async () => {
    expect((await call('POST', '/_local/drain', {}, null)).status).toBe(401);
    expect((await call('POST', '/_local/drain', {}, 'es_live_notakeyofthisruntime0000000000')).status).toBe(401);
    const sending = await call('POST', '/api-keys', { name: 'sending only', permission: 'sending_access' });
    expect(sending.status).toBe(201);
    const refused = await call('POST', '/_local/drain', {}, sending.body.token);
    expect(refused).toMatchObject({
      status: 403,
      body: { name: 'application_error', errors: [{ code: 'insufficient_scope' }] },
    });
  });

  it('tells the time and the clock mode; a real clock cannot be moved', async () => {
    const before = Date.now();
    const clock = await call('GET', '/_local/clock');
    expect(clock).toMatchObject({ status: 200, body: { object: 'clock', mode: 'real' } });
    expect(Date.parse(clock.body.now)).toBeGreaterThanOrEqual(before - 1000);
    expect(await call('POST', '/_local/clock', { advance: '2 days' })).toMatchObject({
      status: 409,
      body: { errors: [{ code: 'clock_not_manual' }] },
    });
  });

  it('drains: an email sent a moment ago reads delivered right after, its pipeline counted', async () => {
    const { key, domain } = await sandbox();
    const sent = await call(
      'POST',
      '/emails',
      { from: `a@${domain}`, to: 'delivered@resend.dev', subject: 'Drained', text: 'hi' },
      key,
    );
    expect(sent.status).toBe(200);
    const drained = await call('POST', '/_local/drain', { timeout_seconds: 30 });
    expect(drained).toMatchObject({ status: 200, body: { object: 'drain' } });
    expect(drained.body.handled).toMatchObject({
      'test-sender': expect.any(Number),
      'email-status': expect.any(Number),
    });
    expect((await call('GET', `/emails/${sent.body.id}`, undefined, key)).body.last_event).toBe('delivered');
  }, 60_000);

  it('runs a scheduled worker now and answers when it finished; an unknown one is 404 naming those there are', async () => {
    const run = await call('POST', '/_local/run/domain-verification');
    expect(run).toMatchObject({ status: 200, body: { object: 'run', worker: 'domain-verification', succeeded: true } });
    const unknown = await call('POST', '/_local/run/no-such-worker');
    expect(unknown.status).toBe(404);
    expect(unknown.body.message).toContain('dispatch-due-emails');
  });

  it('refuses a drain timeout out of range, and a method a path does not take', async () => {
    expect(await call('POST', '/_local/drain', { timeout_seconds: 0 })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_timeout', path: 'timeout_seconds' }] },
    });
    expect(await call('POST', '/_local/drain', { timeout_seconds: 301 })).toMatchObject({ status: 422 });
    expect((await call('GET', '/_local/drain')).status).toBe(405);
  });

  describe('with a webhook endpoint that never answers', () => {
    let endpoint: UnresponsiveEndpoint;
    beforeAll(async () => {
      endpoint = await hangingEndpoint();
    });
    afterAll(() => endpoint.stop());

    it('answers 504 naming the worker it keeps busy', async () => {
      const { key, domain } = await sandbox();
      expect((await call('POST', '/webhooks', { endpoint: endpoint.url, events: ['email.sent'] }, key)).status).toBe(
        201,
      );
      expect(
        (
          await call(
            'POST',
            '/emails',
            { from: `a@${domain}`, to: 'delivered@resend.dev', subject: 'Stuck', text: 'hi' },
            key,
          )
        ).status,
      ).toBe(200);
      const drained = await call('POST', '/_local/drain', { timeout_seconds: 8 });
      expect(drained).toMatchObject({
        status: 504,
        body: { name: 'application_error', errors: [{ code: 'drain_timeout' }] },
      });
      expect(drained.body.message).toContain('webhook-dispatcher');
      expect(endpoint.requests).toBeGreaterThanOrEqual(1);
    }, 60_000);
  });
});
