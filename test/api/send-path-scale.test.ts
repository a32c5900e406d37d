/**
 * The send path at the sizes real mail has (issue 17), through the HTTP API and the real pipeline:
 * an email's content is stored once, apart from its small status item, so no transaction, item
 * or response grows with the bodies.
 *
 * - a batch of 100 emails of 45 KB (4.5 MB of html, near the 5 MB request limit) is accepted, each
 *   readable whole by GET, and neither the list nor the events carry a body;
 * - GET /events over more than 1,000 events answers the newest 1,000 in well under 6 MB (Lambda's
 *   response limit), none carrying a body: 1,001 emails of 10 KB scheduled for tomorrow (one, then
 *   ten batches of 100) make an `email.scheduled` event each, written with their batch, and nothing
 *   after it; 1,000 events carrying their body would be 10 MB. test/api/events.test.ts does not
 *   reach the bound: this test is where it is proved (the first test checks sending's events);
 * - a broadcast with 100 KB of html to 125 contacts is sent to every one of them once: two pages of
 *   the fan-out (pages of 100, shared/broadcasts/fanout.ts), the first written in four transactions.
 *
 * The sizes these tests had (GET /events after 400 emails of 50 KB, a broadcast to 500 contacts: 90-216 s
 * of the gate) are measured by bench/send-path-scale.ts (`BENCH_ONLY=sendscale`), not gated.
 * Each test has a project of its own with a test-mode key: its mail never reaches the local SES,
 * while the fan-out, the transactions, the content store and the sender are the same as for live
 * mail. The file has a runtime of its own (test/support/own-runtime.ts), so its load stays off the
 * runtime the other suites share.
 */
import { createApiKey } from '../../shared/access/api-keys';
import { createProject } from '../../shared/project/projects';
import * as keys from '../../shared/platform/db/keys';
import { getItem } from '../../shared/platform/db/table';
import { api } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { useRuntimeTable } from '../support/table';
import { testProjectId } from '../../shared/project/test-mode';
import { waitFor } from '../support/wait';
import { uniqueName as unique } from '../support/unique';

// A runtime of its own: its thousands of emails load that runtime's one process and DynamoDB Local, not the
// shared ones every other suite talks to (beside it, the emails suite's steps outlived their 30 s)
useOwnRuntime(
  { API_RATE_LIMIT_PER_SECOND: '100000', REPUTATION_MIN_SENDS: '1000000000', TEST_DOMAIN_VERIFY_SECONDS: '0' },
  { forFile: true },
);
beforeAll(() => {
  useRuntimeTable();
});

/**
 * A project of its own with a test key and a domain (test keys may send from any domain of their project), verified
 * at once (TEST_DOMAIN_VERIFY_SECONDS 0): its domain.verified event is written now, before the test's emails.
 */
async function sandbox(): Promise<{ key: string; domain: string; projectId: string }> {
  const project = await createProject(unique('scale'));
  const { token: key } = await createApiKey(
    { projectId: project.id, livemode: false, permission: 'full_access' },
    { name: 'scale', mode: 'test' },
  );
  const domain = `${unique('scale')}.example.com`;
  const created = await api.post('/domains', { name: domain }, { key });
  expect(created.status).toBe(201);
  expect((await api.post(`/domains/${created.body.id}/verify`, {}, { key })).body).toMatchObject({
    status: 'verified',
  });
  return { key, domain, projectId: testProjectId(project.id) }; // where the test key's data is (shared/project/test-mode.ts)
}

const html = (kb: number, label: string) => `<p>${label}</p><p>${'x'.repeat(kb * 1024)}</p>`;

/** Every email of the project, a page of 100 at a time. */
async function allEmails(key: string): Promise<{ id: string; last_event: string; [field: string]: unknown }[]> {
  const all = [];
  let after: string | undefined;
  for (;;) {
    const page = await api.get(`/emails?limit=100${after ? `&after=${after}` : ''}`, { key });
    expect(page.status).toBe(200);
    all.push(...page.body.data);
    if (!page.body.has_more) return all;
    after = page.body.data.at(-1).id;
  }
}

describe('content stored once', () => {
  it('accepts a batch of 100 emails of 45 KB, each read back whole; lists and events carry no body', async () => {
    const { key, domain, projectId } = await sandbox();
    const batch = Array.from({ length: 100 }, (_, n) => ({
      from: `a@${domain}`,
      to: `r${n}@example.com`,
      subject: `Big ${n}`,
      html: html(45, `email ${n}`),
    }));
    const res = await api.post('/emails/batch', batch, { key });
    expect(res.status).toBe(200);
    const ids: string[] = res.body.data.map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(100);

    const one = await api.get(`/emails/${ids[37]}`, { key });
    expect(one.status).toBe(200);
    expect(one.body).toMatchObject({ id: ids[37], subject: 'Big 37', html: html(45, 'email 37') });

    // the stored item is the envelope and status only: every status change rewrites under 1 KB
    const item = await getItem(keys.email(projectId, ids[37]));
    expect(item).toMatchObject({ subject: 'Big 37' });
    expect(Buffer.byteLength(JSON.stringify(item))).toBeLessThan(1024);

    const listed = await allEmails(key);
    expect(listed.map((e) => e.id).sort()).toEqual([...ids].sort());
    for (const email of listed) expect(email).not.toHaveProperty('html');

    const sent = await waitFor(
      () => allEmails(key),
      (emails) => emails.every((e) => e.last_event === 'delivered'),
      60_000,
      500,
    );
    expect(sent).toHaveLength(100);
    const events = (await api.get('/events', { key })).body.data as {
      type: string;
      data: { object: Record<string, unknown> };
    }[];
    expect(events.filter((e) => e.type === 'email.sent')).toHaveLength(100);
    for (const event of events) expect(event.data.object).not.toHaveProperty('html');
  }, 120_000);

  it('answers GET /events over 1,001 events of emails of 10 KB with the newest 1,000, in well under 6 MB', async () => {
    const { key, domain } = await sandbox();
    // scheduled for tomorrow: each email's event (email.scheduled) is written with its batch, and nothing is sent meanwhile;
    // one email first, then ten batches of 100
    const scheduledAt = new Date(Date.now() + 24 * 3600 * 1000).toISOString();
    const batches: string[][] = [];
    for (const size of [1, ...Array.from({ length: 10 }, () => 100)]) {
      const first = batches.flat().length;
      const batch = Array.from({ length: size }, (_, n) => ({
        from: `a@${domain}`,
        to: `r${first + n}@example.com`,
        subject: `Events ${first + n}`,
        html: html(10, `email ${first + n}`),
        scheduled_at: scheduledAt,
      }));
      const res = await api.post('/emails/batch', batch, { key });
      expect(res.status).toBe(200);
      batches.push(res.body.data.map((e: { id: string }) => e.id));
    }
    const events = await api.get('/events', { key });
    expect(events.status).toBe(200);
    expect(events.body.has_more).toBe(false);
    const listed = events.body.data as { type: string; data: { object: Record<string, unknown> } }[];
    // the newest 1,000: the ten batches' emails, each once; the first email's and the domain's events are left out
    expect(listed.map((e) => e.data.object.id).sort()).toEqual(batches.slice(1).flat().sort());
    expect(new Set(listed.map((e) => e.type))).toEqual(new Set(['email.scheduled']));
    const bytes = Buffer.byteLength(JSON.stringify(events.body));
    expect(bytes).toBeLessThan(2 * 1024 * 1024); // about 1 KB an event: no body in any of them
    for (const event of listed) expect(event.data.object).not.toHaveProperty('html');
  }, 120_000);
});

describe('a broadcast with 100 KB of html', () => {
  it('is sent to each of 125 contacts once', async () => {
    const { key, domain } = await sandbox();
    const CONTACTS = 125; // two pages of the fan-out, the second a partial one
    const segment = (await api.post('/segments', { name: unique('everyone') }, { key })).body.id;
    for (let first = 0; first < CONTACTS; first += 25) {
      const created = await Promise.all(
        Array.from({ length: 25 }, (_, n) =>
          api.post(
            '/contacts',
            { email: `reader${first + n}@example.com`, first_name: `R${first + n}`, segments: [{ id: segment }] },
            { key },
          ),
        ),
      );
      expect(created.map((r) => r.status)).toEqual(created.map(() => 201));
    }
    const body = `<p>Hi {{{FIRST_NAME}}}</p>${html(100, 'newsletter')}<a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a>`;
    const broadcast = await api.post(
      '/broadcasts',
      { segment_id: segment, from: `News <news@${domain}>`, subject: 'The big one', html: body },
      { key },
    );
    expect(broadcast.status).toBe(201);
    expect((await api.post(`/broadcasts/${broadcast.body.id}/send`, {}, { key })).status).toBe(200);

    const done = await waitFor(
      () => api.get(`/broadcasts/${broadcast.body.id}`, { key }),
      (r) => ['sent', 'failed'].includes(r.body.status),
      120_000,
      500,
    );
    expect(done.body).toMatchObject({
      status: 'sent',
      counters: { recipients: CONTACTS, sent: CONTACTS, skipped: 0, failed: 0 },
    });
    const emails = await waitFor(
      () => allEmails(key),
      (all) => all.length === CONTACTS && all.every((e) => e.last_event === 'delivered'),
      180_000,
      1000,
    );
    expect(new Set(emails.map((e) => (e.to as string[])[0])).size).toBe(CONTACTS);
    const one = await api.get(`/emails/${emails[0].id}`, { key });
    const reader = Number(/reader(\d+)@/.exec((one.body.to as string[])[0])![1]);
    expect(one.body.html).toContain(`<p>Hi R${reader}</p>`);
    expect(Buffer.byteLength(one.body.html)).toBeGreaterThan(100 * 1024);
  }, 360_000);
});
