/**
 * The manual clock (LOCAL_CLOCK=manual, local/clock.ts) on a runtime of its own: the service's
 * time stands still until `POST /_local/clock` moves it, and a move goes through what falls due on
 * the way, in order, settling the pipeline at each stop.
 * - A send settles `sent` and stays so until the clock passes its SES delivery event; a live send
 *   does so at any instant, the last 100 ms of a second too (where a moving clock keeps a margin).
 * - An email scheduled "in 2 days" goes out when the clock is moved 2 days, and its webhook arrives
 *   within the move; its delivery only when the clock passes the delivery event.
 * - A failing webhook endpoint gets the retries of the schedule (5 s, 5 min, 30 min, ...), one
 *   after the other, each at its time on the clock (the signature's timestamp).
 * - The clock never goes back, and a move must say where it goes.
 */
import { useOwnRuntime } from '../support/own-runtime';
import { WebhookReceiver } from '../support/webhook-receiver';

const runtime = useOwnRuntime({ LOCAL_CLOCK: 'manual' }, { share: true });
const { call } = runtime;
/** A move, answered as it is (the tests of refusals read it). */
const move = (body: Record<string, unknown>) => call('POST', '/_local/clock', { timeout_seconds: 60, ...body });
const clockNow = () => runtime.now();

/** A test-mode key of the runtime's project and a domain it may send from (test keys need no verified domain). */
async function sandbox(): Promise<{ key: string; domain: string }> {
  const created = await call('POST', '/api-keys', { name: 'clock', mode: 'test' });
  expect(created.status).toBe(201);
  const key = created.body.token as string;
  const domain = `clock-${Math.random().toString(36).slice(2, 8)}.example.com`;
  expect((await call('POST', '/domains', { name: domain }, key)).status).toBe(201);
  return { key, domain };
}

describe('the manual clock', () => {
  it('stands still until moved, and says so', async () => {
    const first = await call('GET', '/_local/clock');
    expect(first).toMatchObject({ status: 200, body: { object: 'clock', mode: 'manual' } });
    // no move in between: the same instant, however long the machine takes
    await call('POST', '/_local/drain', {});
    expect((await call('GET', '/_local/clock')).body.now).toBe(first.body.now);
    const moved = await move({ advance_seconds: 90 });
    expect(moved).toMatchObject({ status: 200, body: { object: 'clock', mode: 'manual', stops: expect.any(Number) } });
    expect(Date.parse(moved.body.now) - Date.parse(first.body.now)).toBe(90_000);
    expect(Date.parse((await move({ advance: '1 hour 30 minutes' })).body.now) - Date.parse(moved.body.now)).toBe(
      5_400_000,
    );
  }, 60_000);

  it('never goes back, and a move names exactly one target', async () => {
    const now = await clockNow();
    expect(await move({ set: new Date(now - 1000).toISOString() })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'clock_backwards', path: 'set' }] },
    });
    expect(await move({ advance: 'soon' })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_duration', path: 'advance' }] },
    });
    expect(await move({ advance_seconds: -5 })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_duration' }] },
    });
    expect(await move({ advance: '1 day', advance_seconds: 5 })).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_clock_move' }] },
    });
    expect(await move({})).toMatchObject({ status: 422, body: { errors: [{ code: 'invalid_clock_move' }] } });
    expect(await move({ advance: '400 days' })).toMatchObject({ status: 422 });
    expect(await clockNow()).toBe(now);
    const set = await move({ set: new Date(now + 60_000).toISOString() });
    expect(Date.parse(set.body.now)).toBe(now + 60_000);
  }, 60_000);

  it('settles a send as sent; it is delivered only once the clock passes its delivery event', async () => {
    const { key, domain } = await sandbox();
    const sent = await call(
      'POST',
      '/emails',
      { from: `a@${domain}`, to: 'delivered@resend.dev', subject: 'Held', text: 'hi' },
      key,
    );
    expect(sent.status).toBe(200);
    expect((await call('POST', '/_local/drain', { timeout_seconds: 60 })).status).toBe(200);
    expect((await call('GET', `/emails/${sent.body.id}`, undefined, key)).body.last_event).toBe('sent');
    expect((await move({ advance: '1 second' })).status).toBe(200);
    expect((await call('GET', `/emails/${sent.body.id}`, undefined, key)).body.last_event).toBe('delivered');
  }, 60_000);

  it('handles a send made just before a move at its own time, then what fell due on the way', async () => {
    const { key, domain } = await sandbox();
    const sent = await call(
      'POST',
      '/emails',
      { from: `a@${domain}`, to: 'delivered@resend.dev', subject: 'Moved at once', text: 'hi' },
      key,
    );
    expect(sent.status).toBe(200);
    // no drain first: the move settles the send now, so its delivery (a second later) falls within the move
    expect((await move({ advance_seconds: 5 })).status).toBe(200);
    expect((await call('GET', `/emails/${sent.body.id}`, undefined, key)).body.last_event).toBe('delivered');
  }, 60_000);

  it('sends a live email at once when the clock stands in the last 100 ms of a second', async () => {
    // the send slot keeps a second's last 100 ms for the request to reach SES on a clock that moves;
    // on one that stands still nothing passes on the way, and a come-back in whole seconds would land
    // in the same 100 ms again, holding the email for good
    const name = `late-${Math.random().toString(36).slice(2, 8)}.example.com`;
    const created = await call('POST', '/domains', { name });
    expect(created.status).toBe(201);
    const at = Math.ceil((await clockNow()) / 1000) * 1000 + 10_950; // .950 of a second, past the domain's verification
    expect((await move({ set: new Date(at).toISOString() })).status).toBe(200);
    expect((await call('POST', `/domains/${created.body.id}/verify`)).body.status).toBe('verified');
    const sent = await call('POST', '/emails', {
      from: `a@${name}`,
      to: 'success@simulator.amazonses.com',
      subject: 'Late in its second',
      text: 'hi',
    });
    expect(sent.status).toBe(200);
    expect((await call('POST', '/_local/drain', { timeout_seconds: 60 })).status).toBe(200);
    expect((await call('GET', `/emails/${sent.body.id}`)).body.last_event).toBe('sent');
    expect(await clockNow()).toBe(at);
  }, 60_000);

  describe('with a webhook endpoint', () => {
    const receiver = new WebhookReceiver();
    const own = new WebhookReceiver();
    beforeAll(() => receiver.start());
    afterAll(() => Promise.all([receiver.stop(), own.stop()]));

    it('sends an email scheduled "in 2 days" when the clock is moved 2 days, and its webhook arrives within the move', async () => {
      const { key, domain } = await sandbox();
      expect(
        (await call('POST', '/webhooks', { endpoint: receiver.url, events: ['email.sent', 'email.delivered'] }, key))
          .status,
      ).toBe(201);
      const scheduled = await call(
        'POST',
        '/emails',
        { from: `a@${domain}`, to: 'delivered@resend.dev', subject: 'Later', text: 'hi', scheduled_at: 'in 2 days' },
        key,
      );
      expect(scheduled.status).toBe(200);
      const id = scheduled.body.id as string;
      const of = (type: string) =>
        receiver.receipts.filter((r) => r.json?.type === type && r.json?.data?.email_id === id);

      expect((await move({ advance: '1 day' })).status).toBe(200);
      expect((await call('GET', `/emails/${id}`, undefined, key)).body.last_event).toBe('scheduled');
      expect(of('email.sent')).toHaveLength(0);

      expect((await move({ advance: '1 day' })).status).toBe(200);
      expect((await call('GET', `/emails/${id}`, undefined, key)).body.last_event).toBe('sent');
      expect(of('email.sent')).toHaveLength(1);
      expect(of('email.delivered')).toHaveLength(0);

      expect((await move({ advance: '5 seconds' })).status).toBe(200);
      expect((await call('GET', `/emails/${id}`, undefined, key)).body.last_event).toBe('delivered');
      expect(of('email.delivered')).toHaveLength(1);
    }, 120_000);

    it('retries a failing endpoint on its schedule, in order, each attempt at its time on the clock', async () => {
      const { key, domain } = await sandbox();
      // an endpoint of its own (the project's earlier webhook gets the event too, at the other receiver)
      const receiver = await own.start();
      const hook = await call('POST', '/webhooks', { endpoint: receiver.url, events: ['email.sent'] }, key);
      expect(hook.status).toBe(201);
      receiver.status = 500;
      const sent = await call(
        'POST',
        '/emails',
        { from: `a@${domain}`, to: 'delivered@resend.dev', subject: 'Retried', text: 'hi' },
        key,
      );
      expect(sent.status).toBe(200);
      expect((await call('POST', '/_local/drain', { timeout_seconds: 60 })).status).toBe(200);
      const attempts = () =>
        receiver.receipts.filter((r) => r.json?.type === 'email.sent' && r.json?.data?.email_id === sent.body.id);
      expect(attempts()).toHaveLength(1); // the first attempt; the retry waits for the clock

      expect((await move({ advance: '30 minutes' })).status).toBe(200);
      expect(attempts()).toHaveLength(3); // + 5 s, + 5 min (the next is 30 min after that)
      receiver.status = 200;
      expect((await move({ advance: '1 hour' })).status).toBe(200);
      expect(attempts()).toHaveLength(4); // + 30 min: delivered, no more
      expect((await move({ advance: '1 day' })).status).toBe(200);
      expect(attempts()).toHaveLength(4);

      const at = attempts().map((r) => Number(r.headers['webhook-timestamp']) * 1000);
      const gaps = at.slice(1).map((t, i) => t - at[i]);
      expect(gaps[0]).toBeGreaterThanOrEqual(5_000);
      expect(gaps[0]).toBeLessThan(60_000);
      expect(gaps[1]).toBeGreaterThanOrEqual(5 * 60_000);
      expect(gaps[1]).toBeLessThan(6 * 60_000);
      expect(gaps[2]).toBeGreaterThanOrEqual(30 * 60_000);
      expect(gaps[2]).toBeLessThan(31 * 60_000);
      const deliveries = await call('GET', `/webhooks/${hook.body.id}/deliveries`, undefined, key);
      expect(deliveries.body.data[0]).toMatchObject({ status: 'delivered', attempt_count: 4 });
    }, 120_000);
  });
});
