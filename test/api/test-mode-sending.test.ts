/**
 * Sending in test mode over real HTTP (issue 22; README "Testing your integration"): a test key's
 * emails never reach SES, and each simulated address (shared/emails/simulated-outcomes.ts) comes
 * to its final status through the same workers as live mail, with its events, its signed webhook
 * deliveries (`livemode: false`) and its suppressions, which are the test twin's: a live send to
 * the same address goes out. The local SES receives nothing of it, and GET /emails/{id} offers the
 * message that would have been sent as `raw`. Opens and clicks run on a manual clock of their own
 * (test/support/own-runtime.ts), which publishes each simulated event when it is moved past it.
 */
import PostalMime from 'postal-mime';
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createApiKey } from '../../shared/access/api-keys';
import { testProjectId } from '../../shared/project/test-mode';
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

const runtime = useRuntimeTable();
const run = Date.now().toString(36);
const HTML =
  '<p>Your order</p><a href="https://example.com/order/1">Order</a> <a href="https://example.com/help">Help</a>';
const LINKS = ['https://example.com/help', 'https://example.com/order/1'];

let live: { projectId: string; key: string };
let testKey: string;
let twin: string;
let domain: string;
let secret: string;
const receiver = new WebhookReceiver();

/** What the local SES holds of this run (its mail viewer's store, by this run's subjects). */
const localSesMail = async () => {
  const store = (await fetch(`${runtime.mailViewerUrl}/store`).then((r) => r.json())) as {
    emails: { subject: string }[];
  };
  return store.emails.filter((e) => e.subject.includes(run));
};

/** A test-mode domain, made with the test key: it may send before it is verified. */
async function testDomain(label: string): Promise<string> {
  const name = `${label}-${run}.example.com`;
  const created = await api.post('/domains', { name }, { key: testKey });
  expect(created.status).toBe(201);
  return name;
}

const send = async (to: string, from = domain, key = testKey) => {
  const res = await api.post(
    '/emails',
    { from: `Shop <orders@${from}>`, to, subject: `Order ${run} to ${to}`, html: HTML, text: 'Your order' },
    { key },
  );
  expect(res.status).toBe(200);
  return res.body.id as string;
};
const settles = (id: string, status: string, key = testKey) =>
  waitFor(
    () => api.get(`/emails/${id}`, { key }).then((r) => r.body),
    (e) => e.last_event === status,
    30_000,
    200,
  );
const eventsOf = async (id: string) =>
  (await projectEvents(twin)).map((i) => i.event).filter((e) => e.data.object.id === id);
/** The webhook delivery of `type` for the email, its signature checked with the webhook's secret. */
const delivery = async (id: string, type: string) => {
  const receipt = await waitFor(
    async () => receiver.receipts.find((r) => r.json?.type === type && r.json.data.object.id === id),
    (found) => found !== undefined,
    30_000,
    200,
  );
  return new StandardWebhook(secret).verify(receipt!.body, receipt!.headers as Record<string, string>) as Record<
    string,
    any
  >;
};

let mailBefore: number;
beforeAll(async () => {
  live = await createOtherProject();
  testKey = (
    await createApiKey(
      { projectId: live.projectId, livemode: false, permission: 'full_access' },
      { name: 'ci', mode: 'test' },
    )
  ).token;
  twin = testProjectId(live.projectId);
  await receiver.start();
  domain = await testDomain('shop');
  const events = ['email.sent', 'email.delivered', 'email.bounced', 'email.complained', 'suppression.added'];
  const hook = await api.post('/webhooks', { endpoint: receiver.url, events }, { key: testKey });
  expect(hook.status).toBe(201);
  secret = hook.body.signing_secret;
  mailBefore = (await localSesMail()).length;
}, 60_000);
afterAll(() => receiver.stop());

describe.each([
  { to: 'delivered@resend.dev', status: 'delivered', events: ['email.sent', 'email.delivered'] },
  { to: `delivered+${run}@simulator.amazonses.com`, status: 'delivered', events: ['email.sent', 'email.delivered'] },
  { to: 'success@simulator.amazonses.com', status: 'delivered', events: ['email.sent', 'email.delivered'] },
  { to: 'ooto@simulator.amazonses.com', status: 'delivered', events: ['email.sent', 'email.delivered'] },
  { to: `someone-${run}@example.com`, status: 'delivered', events: ['email.sent', 'email.delivered'] },
  {
    to: `bounced+${run}@resend.dev`,
    status: 'bounced',
    events: ['email.sent', 'email.bounced'],
    suppressed: { source: 'bounce', subtype: 'General' },
  },
  {
    to: `bounce+${run}@simulator.amazonses.com`,
    status: 'bounced',
    events: ['email.sent', 'email.bounced'],
    suppressed: { source: 'bounce', subtype: 'General' },
  },
  {
    to: `suppressionlist+${run}@simulator.amazonses.com`,
    status: 'bounced',
    events: ['email.sent', 'email.bounced'],
    suppressed: { source: 'bounce', subtype: 'OnAccountSuppressionList' },
  },
  {
    to: `complained+${run}@resend.dev`,
    status: 'complained',
    events: ['email.sent', 'email.delivered', 'email.complained'],
    suppressed: { source: 'complaint', subtype: 'abuse' },
  },
  {
    to: `complaint+${run}@simulator.amazonses.com`,
    status: 'complained',
    events: ['email.sent', 'email.delivered', 'email.complained'],
    suppressed: { source: 'complaint', subtype: 'abuse' },
  },
])('a test send to $to', ({ to, status, events, suppressed }) => {
  let id: string;
  beforeAll(async () => {
    id = await send(to);
  });

  it(`ends ${status}, with its events in test mode`, async () => {
    await settles(id, status);
    const found = await waitFor(
      () => eventsOf(id),
      (all) => events.every((type) => all.some((e) => e.type === type)),
    );
    expect(found.every((e) => e.livemode === false)).toBe(true);
    if (status === 'bounced')
      expect(found.find((e) => e.type === 'email.bounced').data.object.bounce).toMatchObject({
        type: 'Permanent',
        subtype: suppressed!.subtype,
      });
    if (status === 'complained')
      expect(found.find((e) => e.type === 'email.complained').data.object.complaint).toMatchObject({
        feedback_type: 'abuse',
      });
  }, 60_000);

  it('delivers a signed webhook with `livemode: false`', async () => {
    expect(await delivery(id, `email.${status}`)).toMatchObject({
      type: `email.${status}`,
      livemode: false,
      data: { object: { id, last_event: status } },
    });
  }, 60_000);

  it(suppressed ? 'suppresses the address in test mode only' : 'suppresses nothing', async () => {
    await settles(id, status);
    const address = encodeURIComponent(to.toLowerCase());
    if (!suppressed) {
      expect((await api.get(`/suppressions/${address}`, { key: testKey })).status).toBe(404);
      return;
    }
    const entry = await waitFor(
      () => api.get(`/suppressions/${address}`, { key: testKey }),
      (r) => r.status === 200,
    );
    expect(entry.body).toMatchObject({ ...suppressed, email: to.toLowerCase(), message_id: id });
    expect((await api.get(`/suppressions/${address}`, { key: live.key })).status).toBe(404);
    expect(await delivery(entry.body.id, 'suppression.added')).toMatchObject({
      livemode: false,
      data: { object: { email: to.toLowerCase() } },
    });
  }, 60_000);
});

describe('opens and clicks, from a domain that tracks them', () => {
  // On a manual clock of its own (test/support/own-runtime.ts): a test email's events are published at their delays on
  // the clock (SIMULATED_DELAY_SECONDS: Delivery 1 s, Open 2 s, Click 3 s after the send), so moving it 5 s has published
  // and handled them all, and an event that did not come by then never will.
  const own = useOwnRuntime({ LOCAL_CLOCK: 'manual', API_RATE_LIMIT_PER_SECOND: '1000' }); // the clock's second never ends by itself
  const ownReceiver = new WebhookReceiver();
  let ownKey: string;
  let ownSecret: string;
  let tracks: string;
  let tracksNothing: string;

  beforeAll(async () => {
    await ownReceiver.start();
    const key = await own.call('POST', '/api-keys', { name: 'ci', mode: 'test' });
    expect(key.status).toBe(201);
    ownKey = key.body.token;
    const domain = async (label: string, settings?: Record<string, unknown>) => {
      const created = await own.call('POST', '/domains', { name: `${label}-${run}.example.com` }, ownKey);
      expect(created.status).toBe(201);
      if (settings) expect((await own.call('PATCH', `/domains/${created.body.id}`, settings, ownKey)).status).toBe(200);
      return created.body.name as string;
    };
    [tracks, tracksNothing] = [
      await domain('tracked', { open_tracking: true, click_tracking: true }),
      await domain('shop'),
    ];
    const hook = await own.call(
      'POST',
      '/webhooks',
      { endpoint: ownReceiver.url, events: ['email.sent', 'email.delivered', 'email.opened', 'email.clicked'] },
      ownKey,
    );
    expect(hook.status).toBe(201);
    ownSecret = hook.body.signing_secret;
  }, 60_000);
  afterAll(() => ownReceiver.stop());

  const statusOf = async (id: string) =>
    (await own.call('GET', `/emails/${id}`, undefined, ownKey)).body.last_event as string;
  /** Sends a test email and moves the clock past its last event: its status then, and its events (oldest first). */
  const sendAndSettle = async (to: string, from: string) => {
    const sent = await own.call(
      'POST',
      '/emails',
      { from: `Shop <orders@${from}>`, to, subject: `Order ${run} to ${to}`, html: HTML, text: 'Your order' },
      ownKey,
    );
    expect(sent.status).toBe(200);
    const id = sent.body.id as string;
    // sent now, at this time on the clock; the rest waits for the clock
    await own.drain();
    expect(await statusOf(id)).toBe('sent');
    await own.move({ advance_seconds: 5 });
    const events = (await own.call('GET', '/events', undefined, ownKey)).body.data as Record<string, any>[];
    return { id, status: await statusOf(id), events: events.filter((e) => e.data.object.id === id).reverse() };
  };
  /** The webhook deliveries of `type` for the email, each signature checked with the webhook's secret. */
  const deliveries = (id: string, type: string) =>
    ownReceiver.receipts
      .filter((r) => r.json?.type === type && r.json.data.object.id === id)
      .map(
        (r) =>
          new StandardWebhook(ownSecret).verify(r.body, r.headers as Record<string, string>) as Record<string, any>,
      );

  it('open@ ends opened', async () => {
    const { id, status, events } = await sendAndSettle(`open+${run}@simulator.amazonses.com`, tracks);
    expect(status).toBe('opened');
    expect(events.map((e) => e.type)).toEqual([
      'email.queued',
      'email.sending',
      'email.sent',
      'email.delivered',
      'email.opened',
    ]);
    const opened = deliveries(id, 'email.opened');
    expect(opened).toHaveLength(1);
    expect(opened[0]).toMatchObject({ livemode: false, data: { object: { id, open: { ipAddress: '192.0.2.1' } } } });
  }, 60_000);

  it('click@ ends clicked, with an email.clicked per link', async () => {
    const { id, status, events } = await sendAndSettle(`click+${run}@simulator.amazonses.com`, tracks);
    expect(status).toBe('clicked');
    expect(events.map((e) => e.type)).toEqual([
      'email.queued',
      'email.sending',
      'email.sent',
      'email.delivered',
      'email.opened',
      'email.clicked',
      'email.clicked',
    ]);
    const clicks = events.filter((e) => e.type === 'email.clicked');
    expect(clicks.map((e) => e.data.object.click.link).sort()).toEqual(LINKS);
    const delivered = deliveries(id, 'email.clicked');
    expect(delivered).toHaveLength(LINKS.length);
    for (const payload of delivered) expect(payload).toMatchObject({ livemode: false, data: { object: { id } } });
  }, 60_000);

  it('click@ from a domain that tracks nothing is only delivered', async () => {
    const { id, status, events } = await sendAndSettle(`click+${run}-untracked@simulator.amazonses.com`, tracksNothing);
    expect(status).toBe('delivered');
    expect(events.map((e) => e.type)).toEqual(['email.queued', 'email.sending', 'email.sent', 'email.delivered']);
    expect(deliveries(id, 'email.clicked')).toEqual([]);
  }, 60_000);
});

it('never blocks a live send with a test suppression', async () => {
  const address = `bounced+live-${run}@resend.dev`;
  await settles(await send(address), 'bounced');
  await waitFor(
    () => api.get(`/suppressions/${encodeURIComponent(address)}`, { key: testKey }),
    (r) => r.status === 200,
  );
  // the same address again in test mode: suppressed there
  expect(await settles(await send(address), 'suppressed')).toMatchObject({ suppressed_reason: 'suppression_list' });
  // and a live send goes out (the local SES does not simulate resend.dev: live mail to it is real mail)
  const liveDomain = await verifiedDomain(live.key, `live-${run}`);
  const id = await send(address, liveDomain, live.key);
  expect(await settles(id, 'delivered', live.key)).not.toHaveProperty('raw');
  expect((await localSesMail()).map((m) => m.subject)).toContain(`Order ${run} to ${address}`);
}, 90_000);

it('shows the message a test email would have sent as `raw`', async () => {
  const id = await send(`reader-${run}@example.com`);
  const email = await settles(id, 'delivered');
  expect(email.raw).toEqual({ download_url: expect.stringMatching(/^http/), expires_at: expect.any(String) });
  const download = await fetch(email.raw.download_url);
  expect(download.status).toBe(200);
  const message = await PostalMime.parse(Buffer.from(await download.arrayBuffer()));
  expect(message).toMatchObject({
    subject: `Order ${run} to reader-${run}@example.com`,
    messageId: email.message_id,
    html: `${HTML}\n`,
    text: 'Your order\n',
  });
  expect(message.from).toMatchObject({ name: 'Shop', address: `orders@${domain}` });
}, 60_000);

it('sends nothing to the local SES in test mode', async () => {
  // every test send of this run has ended by now (the tests above waited for each); the live one is the control
  const mail = await localSesMail();
  expect(mail.length - mailBefore).toBe(1);
  expect(mail.map((m) => m.subject)).toEqual([`Order ${run} to bounced+live-${run}@resend.dev`]);
});
