/**
 * `topic_id` on POST /emails and /emails/batch (Resend's option) over HTTP and through the real
 * sender: a recipient opted out of the topic (explicitly, by the topic's opt_out default, or
 * unsubscribed from everything) does not get the email; when nobody may get it, the email ends
 * `suppressed` with `suppressed_reason: "topic_opt_out"` and `email.suppressed`. The local SES's
 * store shows what was really sent. Each test uses a project of its own.
 */
import { Resend } from 'resend';
import { verifiedDomain } from '../support/domains';
import { api, baseUrl } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { uniqueName } from '../support/unique';

const runtime = useRuntimeTable();
let counter = 0;
const unique = (label: string) => `${uniqueName(label)}@example.com`;

interface StoredEmail {
  subject: string;
  destination?: string[];
  to?: string[];
  [key: string]: unknown;
}
const storedWith = async (subject: string): Promise<StoredEmail[]> =>
  ((await fetch(`${runtime.mailViewerUrl}/store`).then((r) => r.json())) as { emails: StoredEmail[] }).emails.filter(
    (e) => e.subject === subject,
  );

async function setUp() {
  const { key, projectId } = await createOtherProject();
  const domain = await verifiedDomain(key);
  const topic = async (default_subscription: 'opt_in' | 'opt_out') =>
    (await api.post('/topics', { name: `t-${counter++}`, default_subscription }, { key })).body.id as string;
  const contact = async (email: string, extra: Record<string, unknown>) =>
    expect((await api.post('/contacts', { email, ...extra }, { key })).status).toBe(201);
  const emailOf = async (id: string) => (await api.get(`/emails/${id}`, { key })).body;
  return { key, projectId, domain, topic, contact, emailOf };
}

describe('topic_id on sends', () => {
  it('sends only to recipients who may get the topic, and suppresses an email nobody may get', async () => {
    const { key, projectId, domain, topic, contact, emailOf } = await setUp();
    const news = await topic('opt_in');
    const [reader, leaver, unsubscribed, stranger] = [
      unique('reader'),
      unique('leaver'),
      unique('unsub'),
      unique('stranger'),
    ];
    await contact(reader, {});
    await contact(leaver, { topics: [{ id: news, subscription: 'opt_out' }] });
    await contact(unsubscribed, { unsubscribed: true });

    const subject = `topic mixed ${Date.now()}`;
    const sent = await api.post(
      '/emails',
      { from: `news@${domain}`, to: [reader, leaver, unsubscribed, stranger], subject, text: 'x', topic_id: news },
      { key },
    );
    expect(sent.status).toBe(200);
    // what the local SES took (its store): the sender's work, not the delivery event that follows it (which
    // waits behind every other suite's SES events in the shared runtime's one status worker)
    const [stored] = await waitFor(
      () => storedWith(subject),
      (found) => found.length === 1,
    );
    expect((await emailOf(sent.body.id)).topic_id).toBe(news);
    const seen = JSON.stringify(stored);
    expect(seen).toContain(reader); // subscribed by the topic's default
    expect(seen).toContain(stranger); // no contact: the topic's opt_in default
    expect(seen).not.toContain(leaver);
    expect(seen).not.toContain(unsubscribed);

    const quiet = `topic none ${Date.now()}`;
    const refused = await api.post(
      '/emails',
      { from: `news@${domain}`, to: [leaver, unsubscribed], subject: quiet, text: 'x', topic_id: news },
      { key },
    );
    expect(refused.status).toBe(200);
    const suppressed = await waitFor(
      () => emailOf(refused.body.id),
      (e) => e.last_event === 'suppressed',
    );
    expect(suppressed).toMatchObject({ suppressed_reason: 'topic_opt_out', topic_id: news });
    const event = await waitFor(
      async () =>
        (await projectEvents(projectId))
          .map((item) => item.event)
          .find((e) => e.type === 'email.suppressed' && e.data.email_id === refused.body.id),
      (found) => found !== undefined,
    );
    expect(event.data).toMatchObject({
      object: { id: refused.body.id, last_event: 'suppressed' },
      suppressed: { type: 'topic_opt_out', message: expect.stringMatching(/opted out/) },
    });
    expect(await storedWith(quiet)).toEqual([]);
  }, 60_000);

  it("follows an opt_out topic's default for addresses that are no contact or never chose, and an explicit opt-in", async () => {
    const { key, domain, topic, contact, emailOf } = await setUp();
    const digest = await topic('opt_out');
    const [joined, silent] = [unique('joined'), unique('silent')];
    await contact(joined, { topics: [{ id: digest, subscription: 'opt_in' }] });
    await contact(silent, {});
    const batch = await api.post(
      '/emails/batch',
      [
        { from: `d@${domain}`, to: joined, subject: `digest in ${Date.now()}`, text: 'x', topic_id: digest },
        {
          from: `d@${domain}`,
          to: [silent, unique('nobody')],
          subject: `digest out ${Date.now()}`,
          text: 'x',
          topic_id: digest,
        },
      ],
      { key },
    );
    expect(batch.status).toBe(200);
    const [first, second] = batch.body.data.map((d: { id: string }) => d.id);
    await waitFor(
      () => emailOf(first),
      (e) => e.last_event === 'delivered', // the local SES delivers the one who opted in
    );
    expect(
      await waitFor(
        () => emailOf(second),
        (e) => e.last_event === 'suppressed',
      ),
    ).toMatchObject({ suppressed_reason: 'topic_opt_out' });
  }, 60_000);

  it('refuses an unknown topic (422 naming topic_id) and a malformed one, and fails an email whose topic is deleted before it goes', async () => {
    const { key, domain, topic, emailOf } = await setUp();
    const unknown = await api.post(
      '/emails',
      {
        from: `a@${domain}`,
        to: unique('x'),
        subject: 's',
        text: 'x',
        topic_id: '01900000-0000-7000-8000-0000000000ff',
      },
      { key },
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors).toEqual([expect.objectContaining({ code: 'not_found', path: 'topic_id' })]);
    const malformed = await api.post(
      '/emails',
      { from: `a@${domain}`, to: unique('x'), subject: 's', text: 'x', topic_id: 'news' },
      { key },
    );
    expect(malformed.status).toBe(422);
    expect(malformed.body.errors[0].path).toBe('topic_id');

    const doomed = await topic('opt_in');
    const later = await api.post(
      '/emails',
      {
        from: `a@${domain}`,
        to: unique('x'),
        subject: 's',
        text: 'x',
        topic_id: doomed,
        scheduled_at: new Date(Date.now() + 5_000).toISOString(),
      },
      { key },
    );
    expect(later.status).toBe(200);
    expect((await api.delete(`/topics/${doomed}`, { key })).status).toBe(200);
    const failed = await waitFor(
      () => emailOf(later.body.id),
      (e) => e.last_event === 'failed',
      30_000,
    );
    expect(failed.last_event).toBe('failed');
  }, 60_000);

  it('works from the official SDK (topicId)', async () => {
    const { key, domain, topic, contact, emailOf } = await setUp();
    const news = await topic('opt_in');
    const leaver = unique('sdk-leaver');
    await contact(leaver, { topics: [{ id: news, subscription: 'opt_out' }] });
    const resend = new Resend(key, { baseUrl: baseUrl() });
    const { data, error } = await resend.emails.send({
      from: `sdk@${domain}`,
      to: leaver,
      subject: 'sdk topic',
      text: 'x',
      topicId: news,
    });
    expect(error).toBeNull();
    expect(
      await waitFor(
        () => emailOf(data!.id),
        (e) => e.last_event === 'suppressed',
      ),
    ).toMatchObject({ topic_id: news, suppressed_reason: 'topic_opt_out' });
  }, 60_000);
});
