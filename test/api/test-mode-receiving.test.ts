/**
 * Receiving in test mode (issue 22), over real HTTP: a test send to an address at a receiving-enabled
 * domain of its own sandbox is filed there through the inbound worker, as received mail
 * (shared/emails/test-mode-send.ts `deliverToSandbox`, shared/receiving/inbound.ts); mail from outside
 * never reaches a test domain, and the live project never sees the sandbox's mail.
 */
import { randomBytes } from 'node:crypto';
import { api } from '../support/http';
import { deliverMail } from '../support/smtp';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();

const stamp = `${Date.now().toString(36)}${randomBytes(2).toString('hex')}`;
let live: { projectId: string; key: string };
let testKey: string;

async function verifiedDomain(name: string, key: string): Promise<{ id: string; name: string }> {
  const created = await api.post('/domains', { name, capabilities: { receiving: 'enabled' } }, { key });
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`, undefined, { key }),
    (r) => r.body.status === 'verified',
    40_000,
    500,
  );
  return created.body;
}

const receivedWith = (key: string, subject: string) =>
  waitFor(
    async () => (await api.get('/emails/receiving?limit=100', { key })).body.data as any[],
    (list) => list.some((e) => e.subject === subject),
    40_000,
    500,
  ).then((list) => list.find((e) => e.subject === subject));

beforeAll(async () => {
  live = await createOtherProject();
  testKey = (await api.post('/api-keys', { name: 'receiving', mode: 'test' }, { key: live.key })).body.token;
});

it("files a test send to its own sandbox's receiving domain as received mail there, and only there", async () => {
  const domain = await verifiedDomain(`inbox-${stamp}.example.com`, testKey);
  const subject = `Loopback ${stamp}`;
  const to = `inbox@${domain.name}`;
  const sent = await api.post(
    '/emails',
    { from: `ci@${domain.name}`, to, subject, html: '<p>hello <b>sandbox</b></p>', text: 'hello sandbox' },
    { key: testKey },
  );
  expect(sent.status).toBe(200);

  const record = await receivedWith(testKey, subject);
  expect(record).toMatchObject({ to: [to], received_for: [to], subject });
  const full = await api.get(`/emails/receiving/${record.id}`, { key: testKey });
  expect(full.body.text).toContain('hello sandbox');
  expect(full.body.html).toContain('<b>sandbox</b>');
  // the send itself goes on as any test send: delivered
  await waitFor(
    () => api.get(`/emails/${sent.body.id}`, { key: testKey }),
    (r) => r.body.last_event === 'delivered',
    40_000,
  );
  // the live project never sees it
  expect((await api.get(`/emails/receiving/${record.id}`, { key: live.key })).status).toBe(404);
  const ofLive = (await api.get('/emails/receiving?limit=100', { key: live.key })).body.data as any[];
  expect(ofLive.filter((e) => e.subject === subject)).toEqual([]);
  // and its webhooks-to-be: the received events are test-mode ones
  const events = (await api.get('/events', { key: testKey })).body.data as any[];
  const received = events.filter((e) => e.type === 'email.received' && e.data.object.id === record.id);
  expect(received).toHaveLength(1);
  expect(received[0].livemode).toBe(false);
}, 90_000);

it('takes no mail from outside into a test domain, even beside a live domain that receives it', async () => {
  const testDomain = await verifiedDomain(`outside-${stamp}.example.com`, testKey);
  const liveDomain = await verifiedDomain(`live-${stamp}.example.com`, live.key);
  const subject = `From outside ${stamp}`;
  await deliverMail(
    'sender@outside.example',
    [`inbox@${testDomain.name}`, `inbox@${liveDomain.name}`],
    [
      'From: Outside <sender@outside.example>',
      `To: inbox@${testDomain.name}, inbox@${liveDomain.name}`,
      `Subject: ${subject}`,
      '',
      'for both',
    ],
  );
  // the worker files one message for every project it is for at once: once the live record is there, a test one would be too
  const ofLive = await receivedWith(live.key, subject);
  expect(ofLive.received_for).toEqual([`inbox@${liveDomain.name}`]);
  const ofTest = (await api.get('/emails/receiving?limit=100', { key: testKey })).body.data as any[];
  expect(ofTest.filter((e) => e.subject === subject)).toEqual([]);
}, 90_000);
