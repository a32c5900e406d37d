/**
 * Remote attachments never block the shared sender (issue 32, 11). Project A sends 20 emails whose
 * `path` attachment is on an endpoint that accepts the connection and never answers
 * (test/support/unresponsive-endpoints.ts); project B then sends one plain email, and it is sent
 * (and `delivered`) while A's are still waiting for their attachments. Before the fetch stage
 * (shared/emails/attachment-fetch.ts), the sender fetched A's attachments itself, one after
 * another for up to 30 s each, and the runtime's two sender invocations (the local SES's 14 a
 * second: two batches of 10) were A's until their timeout, B's email waiting behind them.
 *
 * When the endpoint goes away, A's emails end `failed` with the reason: none is lost, and a retry
 * fetches again. A test key's email never fetches (the endpoint is not asked) and is sent with a
 * simulated fetch; a scheduled email is fetched when it becomes due.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiKey } from '../../shared/access/api-keys';
import { api } from '../support/http';
import { verifiedDomain } from '../support/domains';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { hangingEndpoint, type UnresponsiveEndpoint } from '../support/unresponsive-endpoints';
import { waitFor } from '../support/wait';

useRuntimeTable();

const SLOW_EMAILS = 20;
let endpoint: UnresponsiveEndpoint | undefined;
afterEach(async () => {
  await endpoint?.stop();
});

const statuses = (ids: string[], key: string) =>
  Promise.all(ids.map(async (id) => (await api.get(`/emails/${id}`, { key })).body as { last_event: string }));
/** The reasons of the `email.failed` events of `id` (as webhooks and GET /events carry them), oldest first. */
const failureReasons = async (id: string, key: string): Promise<string[]> =>
  (
    (await api.get('/events', { key })).body.data as {
      type: string;
      data: { email_id: string; failed: { reason: string } };
    }[]
  )
    .filter((e) => e.type === 'email.failed' && e.data.email_id === id)
    .map((e) => e.data.failed.reason)
    .reverse();

it("sends another project's email while one project's slow attachments are pending, then fails those with the reason", async () => {
  endpoint = await hangingEndpoint();
  const [a, b] = await Promise.all([createOtherProject(), createOtherProject()]);
  const [domainA, domainB] = await Promise.all([verifiedDomain(a.key, 'slow-files'), verifiedDomain(b.key, 'plain')]);

  const batch = await api.post(
    '/emails/batch',
    Array.from({ length: SLOW_EMAILS }, (_, i) => ({
      from: `files@${domainA}`,
      to: 'reader@example.com',
      subject: `slow attachment ${i}`,
      text: 'see attached',
      attachments: [{ path: `${endpoint!.url}/report-${i}.pdf` }],
    })),
    { key: a.key },
  );
  expect(batch.status).toBe(200);
  const slowIds = (batch.body.data as { id: string }[]).map((e) => e.id);
  // A's fetches are under way (the endpoint has been asked) before B sends
  await waitFor(
    async () => endpoint!.requests,
    (n) => n >= 2,
    20_000,
  );

  const plain = await api.post(
    '/emails',
    { from: `hello@${domainB}`, to: 'delivered@simulator.amazonses.com', subject: 'plain', text: 'hi' },
    { key: b.key },
  );
  expect(plain.status).toBe(200);
  await waitFor(
    async () => (await api.get(`/emails/${plain.body.id}`, { key: b.key })).body.last_event as string,
    (status) => status === 'delivered', // delivered@simulator: its Delivery comes a moment (0.2 s) after the send
    10_000, // a send at the local SES's 14 a second takes well under a second; A's fetches hold the sender for 30 s
    100,
  );
  // A's are all still waiting for their attachments: neither sent nor failed
  expect(new Set((await statuses(slowIds, a.key)).map((e) => e.last_event))).toEqual(new Set(['queued']));

  // the endpoint goes away: every one of A's emails ends failed, with the reason, none lost
  await endpoint.stop();
  endpoint = undefined;
  await waitFor(
    () => statuses(slowIds, a.key),
    (emails) => emails.every((e) => e.last_event === 'failed'),
    90_000,
    500,
  );
  for (const [i, id] of slowIds.entries())
    expect(await failureReasons(id, a.key)).toEqual([
      expect.stringMatching(new RegExp(`^not sent: .*/report-${i}\\.pdf`)),
    ]);

  // a retry goes through the fetch stage again (the URL is still gone: failed again, with the reason)
  expect((await api.post(`/emails/${slowIds[0]}/retry`, undefined, { key: a.key })).status).toBe(200);
  const reasons = await waitFor(
    () => failureReasons(slowIds[0], a.key),
    (found) => found.length === 2,
    30_000,
    200,
  );
  expect(reasons[1]).toMatch(/^not sent: .*\/report-0\.pdf/);
}, 180_000);

describe('without a slow endpoint', () => {
  let files: Server;
  let filesUrl: string;
  let requests = 0;
  beforeAll(async () => {
    files = createServer((request, response) => {
      requests += 1;
      request.resume();
      response.writeHead(200, { 'content-type': 'text/plain' }).end(`the file at ${request.url}`);
    });
    await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
    filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise((resolve) => files.close(resolve)));

  const attachment = async (emailId: string, key: string) => {
    const [listed] = (await api.get(`/emails/${emailId}/attachments`, { key })).body.data;
    return Buffer.from(await (await fetch(listed.download_url)).arrayBuffer()).toString('utf8');
  };

  it("sends a test key's email without fetching its path: the URL is checked and a simulated fetch stored", async () => {
    const live = await createOtherProject();
    const testKey = (
      await createApiKey(
        { projectId: live.projectId, livemode: false, permission: 'full_access' },
        { name: 'ci', mode: 'test' },
      )
    ).token;
    const domain = `fetchless-${Date.now().toString(36)}.example.com`;
    expect((await api.post('/domains', { name: domain }, { key: testKey })).status).toBe(201);
    const before = requests;
    const sent = await api.post(
      '/emails',
      {
        from: `files@${domain}`,
        to: 'delivered@resend.dev',
        subject: 'simulated',
        text: 'x',
        attachments: [{ path: `${filesUrl}/invoice.pdf` }],
      },
      { key: testKey },
    );
    expect(sent.status).toBe(200);
    await waitFor(
      async () => (await api.get(`/emails/${sent.body.id}`, { key: testKey })).body.last_event as string,
      (status) => status === 'delivered', // delivered@resend.dev in test mode: its simulated Delivery comes 1 s after the send
      20_000,
      200,
    );
    expect(requests).toBe(before);
    expect(await attachment(sent.body.id, testKey)).toMatch(
      new RegExp(`^Test mode: ${filesUrl}/invoice.pdf was not fetched`),
    );

    // a URL a live fetch would refuse fails the test email the same way (`.invalid` never resolves: RFC 6761)
    const refused = await api.post(
      '/emails',
      {
        from: `files@${domain}`,
        to: 'delivered@resend.dev',
        subject: 'refused',
        text: 'x',
        attachments: [{ path: 'https://files.invalid/report.pdf' }],
      },
      { key: testKey },
    );
    expect(refused.status).toBe(200);
    const [reason] = await waitFor(
      () => failureReasons(refused.body.id, testKey),
      (found) => found.length === 1,
      20_000,
      200,
    );
    expect(reason).toMatch(/^not sent: https:\/\/files\.invalid\/report\.pdf refused: DNS lookup failed/);
  }, 60_000);

  it('fetches a scheduled email when it becomes due, and sends it with the file', async () => {
    const project = await createOtherProject();
    const domain = await verifiedDomain(project.key, 'later');
    const before = requests;
    const sent = await api.post(
      '/emails',
      {
        from: `files@${domain}`,
        to: 'reader@example.com',
        subject: 'later',
        text: 'x',
        scheduled_at: new Date(Date.now() + 3_000).toISOString(),
        attachments: [{ path: `${filesUrl}/later.txt` }],
      },
      { key: project.key },
    );
    expect(sent.status).toBe(200);
    expect(requests).toBe(before); // nothing fetched at acceptance
    await waitFor(
      async () => (await api.get(`/emails/${sent.body.id}`, { key: project.key })).body.last_event as string,
      (status) => status === 'delivered', // the local SES delivers reader@example.com
      30_000,
      200,
    );
    expect(await attachment(sent.body.id, project.key)).toBe('the file at /later.txt');
  }, 60_000);
});
