/**
 * Broadcasts over HTTP through the whole local pipeline: POST /broadcasts + send -> the
 * broadcast-fanout queue and worker -> emails on the send queue -> the sender -> local SES (the
 * mail viewer's store); and the one-click unsubscribe links in those emails.
 */
import { api, baseUrl, request } from '../support/http';
import { createOtherProject, projectEvents, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { uniqueName as unique } from '../support/unique';

const runtime = useRuntimeTable();

interface StoredEmail {
  subject: string;
  destination: { to: string[] };
  body: { html?: string; text?: string };
  headers?: { name: string; value: string }[];
}
const mailViewer = () =>
  fetch(`${runtime.mailViewerUrl}/store`)
    .then((r) => r.json() as Promise<{ emails: StoredEmail[] }>)
    .then((s) => s.emails);

let domain: string;
let segmentId: string;
let topicId: string;

beforeAll(async () => {
  domain = `${unique('news')}.example.com`;
  const created = await api.post('/domains', { name: domain });
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`),
    (r) => r.body.status === 'verified',
  );
  segmentId = (await api.post('/segments', { name: unique('segment') })).body.id;
  topicId = (await api.post('/topics', { name: unique('Product news'), default_subscription: 'opt_in' })).body.id;
});

const draft = (overrides: Record<string, unknown> = {}) => ({
  segment_id: segmentId,
  from: `Acme <news@${domain}>`,
  subject: 'Hello',
  html: '<p>Hello</p>',
  ...overrides,
});

describe('a broadcast to a segment', () => {
  it('sends to the subscribed contacts only, with one-click unsubscribe links that the next broadcast respects', async () => {
    const tag = unique('b');
    const address = (name: string) => `${name}-${tag}@${domain}`;
    const contacts: Record<string, string> = {};
    for (const [name, extra] of [
      ['ada', {}],
      ['bob', {}],
      ['cyd', { unsubscribed: true }],
      ['dee', {}],
      ['eve', { topics: [{ id: topicId, subscription: 'opt_out' }] }],
    ] as const) {
      const res = await api.post('/contacts', {
        email: address(name),
        first_name: name.toUpperCase(),
        segments: [{ id: segmentId }],
        properties: { plan: 'pro' },
        ...extra,
      });
      expect(res.status).toBe(201);
      contacts[name] = res.body.id;
    }
    expect((await api.post('/suppressions', { email: address('dee') })).status).toBe(201);
    const segment = (await api.post('/segments', { name: unique('only these') })).body.id;
    for (const id of Object.values(contacts))
      expect((await api.post(`/contacts/${id}/segments/${segment}`)).status).toBe(200);

    const subject = `November ${tag} for {{{FIRST_NAME}}}`;
    const created = await api.post(
      '/broadcasts',
      draft({
        segment_id: segment,
        topic_id: topicId,
        name: 'November',
        subject,
        html: '<p>Hi {{FIRST_NAME}} on {{{plan}}}</p><a href="{{{RESEND_UNSUBSCRIBE_URL}}}">Unsubscribe</a>',
        text: 'Hi {{{FIRST_NAME}}}',
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      object: 'broadcast',
      status: 'draft',
      segment_id: segment,
      topic_id: topicId,
      name: 'November',
      sent_at: null,
      counters: { recipients: 0, sent: 0, skipped: 0, failed: 0 },
    });

    const sent = await api.post(`/broadcasts/${created.body.id}/send`, {});
    expect(sent.status).toBe(200);
    expect(sent.body.status).toBe('queued');
    const done = await waitFor(
      () => api.get(`/broadcasts/${created.body.id}`),
      (r) => r.body.status === 'sent',
      30_000,
    );
    expect(done.body).toMatchObject({
      status: 'sent',
      sent_at: expect.any(String),
      counters: { recipients: 5, sent: 2, skipped: 3, failed: 0 },
    });

    const delivered = await waitFor(
      mailViewer,
      (emails) => emails.filter((e) => e.subject.startsWith(`November ${tag}`)).length >= 2,
      30_000,
    );
    const ours = delivered.filter((e) => e.subject.startsWith(`November ${tag}`));
    expect(ours.map((e) => e.destination.to[0]).sort()).toEqual([address('ada'), address('bob')]);
    const ada = ours.find((e) => e.destination.to[0] === address('ada'))!;
    expect(ada.subject).toBe(`November ${tag} for ADA`);
    expect(ada.body.text).toBe('Hi ADA');
    const header = (name: string) => ada.headers?.find((h) => h.name.toLowerCase() === name.toLowerCase())?.value;
    expect(header('List-Unsubscribe-Post')).toBe('List-Unsubscribe=One-Click');
    const link = /^<(http[^>]+)>$/.exec(header('List-Unsubscribe') ?? '')?.[1];
    expect(link).toMatch(new RegExp(`^${baseUrl()}/unsubscribe/[A-Za-z0-9_-]{60,}$`));
    expect(ada.body.html).toContain(`<p>Hi ADA on pro</p><a href="${link}">`);

    // the emails of the broadcast carry its id
    const emailsOfBroadcast = (await api.get('/emails?limit=100')).body.data.filter(
      (e: { broadcast_id?: string }) => e.broadcast_id === created.body.id,
    );
    expect(emailsOfBroadcast).toHaveLength(2);

    // GET shows a page and changes nothing; POST (as a mail client's one-click) unsubscribes from the topic
    const page = await fetch(link!);
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain(address('ada'));
    const subscription = async () =>
      (await api.get(`/contacts/${contacts.ada}/topics`)).body.data.find((t: { id: string }) => t.id === topicId)
        ?.subscription;
    expect(await subscription()).toBe('opt_in');
    const oneClick = await fetch(link!, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(oneClick.status).toBe(200);
    expect(await oneClick.text()).toContain('Unsubscribed');
    expect(await subscription()).toBe('opt_out');
    expect((await api.get(`/contacts/${contacts.ada}`)).body.unsubscribed).toBe(false); // only from the topic
    const heard = (await projectEvents(runtime.projectId))
      .map((item) => item.event)
      .filter((e) => e.type === 'contact.topics.updated' && e.data.object.id === contacts.ada);
    expect(heard.map((e) => e.data.topics)).toEqual([[{ id: topicId, subscription: 'opt_out' }]]);

    // the next broadcast to the topic skips ada
    const again = await api.post(`/broadcasts/${created.body.id}/duplicate`);
    expect(again.status).toBe(201);
    expect(again.body).toMatchObject({ status: 'draft', subject, topic_id: topicId });
    await api.post(`/broadcasts/${again.body.id}/send`, {});
    const second = await waitFor(
      () => api.get(`/broadcasts/${again.body.id}`),
      (r) => r.body.status === 'sent',
      30_000,
    );
    expect(second.body.counters).toEqual({ recipients: 5, sent: 1, skipped: 4, failed: 0 });
  }, 90_000);

  it('unsubscribes from everything through a link of a broadcast without a topic', async () => {
    const tag = unique('c');
    const email = `fay-${tag}@${domain}`;
    const contact = (await api.post('/contacts', { email, first_name: 'Fay', segments: [segmentId] })).body;
    const segment = (await api.post('/segments', { name: unique('fay') })).body.id;
    await api.post(`/contacts/${contact.id}/segments/${segment}`);
    const created = await api.post(
      '/broadcasts',
      draft({
        segment_id: segment,
        subject: `All ${tag}`,
        text: 'Bye: {{{RESEND_UNSUBSCRIBE_URL}}}',
        html: undefined,
        send: true,
      }),
    );
    expect(created.status).toBe(201);
    expect(created.body.status).toBe('queued');
    await waitFor(
      () => api.get(`/broadcasts/${created.body.id}`),
      (r) => r.body.status === 'sent',
      30_000,
    );
    const stored = (await waitFor(mailViewer, (emails) => emails.some((e) => e.subject === `All ${tag}`), 30_000)).find(
      (e) => e.subject === `All ${tag}`,
    )!;
    const link = /Bye: (\S+)$/.exec(stored.body.text!)![1];
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    expect((await fetch(link, { method: 'POST' })).status).toBe(200); // again: nothing changes
    expect((await api.get(`/contacts/${contact.id}`)).body.unsubscribed).toBe(true);
    // the project hears of it once, as of any change of the contact
    const heard = (await projectEvents(runtime.projectId))
      .map((item) => item.event)
      .filter((e) => e.type === 'contact.updated' && e.data.id === contact.id && e.data.unsubscribed);
    expect(heard).toHaveLength(1);

    // the links' key is kept sealed under the secrets key: what the table holds is not the key
    const { getItem } = await import('../../shared/platform/db/table');
    const keys = await import('../../shared/platform/db/keys');
    const stored_key = await getItem(keys.unsubscribeSecret());
    expect(stored_key?.secret).toMatch(/^esk1\.[\w-]+\.[\w-]+\.[\w-]+$/);
  }, 60_000);

  it('signs links in another cold start of the fan-out with the same key: it opens the sealed key the first one made', async () => {
    // this process is a second fan-out sandbox: its first link reads the key item and Decrypts it
    const { invoke, workerFunction } = await import('../../local/lambda/invocation');
    const { unsubscribeToken } = await import('../../shared/broadcasts/unsubscribe');
    const contact = (await api.post('/contacts', { email: `gus-${unique('c')}@${domain}` })).body;
    const sign = () => unsubscribeToken({ projectId: runtime.projectId, contactId: contact.id, topicId: null });
    const link = `${baseUrl()}/unsubscribe/${(await invoke(workerFunction('broadcast-fanout'), sign, {})) as string}`;
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    expect((await api.get(`/contacts/${contact.id}`)).body.unsubscribed).toBe(true);
  });

  it("unsubscribes a test-mode contact through a test-mode broadcast's link: the token names the test twin", async () => {
    const { invoke, workerFunction } = await import('../../local/lambda/invocation');
    const { unsubscribeToken } = await import('../../shared/broadcasts/unsubscribe');
    const { createApiKey } = await import('../../shared/access/api-keys');
    const { testProjectId } = await import('../../shared/project/test-mode');
    // a project of its own: the default project's test twin is shared by every suite of the runtime
    const { projectId } = await createOtherProject();
    const { token: testKey } = await createApiKey(
      { projectId, livemode: false, permission: 'full_access' },
      { name: 'unsubscribe test twin', mode: 'test' },
    );
    const created = await request('POST', '/contacts', { email: `hal-${unique('c')}@${domain}` }, { key: testKey });
    expect(created.status).toBe(201);
    // as the fan-out signs a test-mode broadcast's link: for the contact of the twin
    const sign = () =>
      unsubscribeToken({ projectId: testProjectId(projectId), contactId: created.body.id, topicId: null });
    const link = `${baseUrl()}/unsubscribe/${(await invoke(workerFunction('broadcast-fanout'), sign, {})) as string}`;
    expect(await (await fetch(link)).text()).toContain(created.body.email);
    expect((await fetch(link, { method: 'POST' })).status).toBe(200);
    expect((await request('GET', `/contacts/${created.body.id}`, undefined, { key: testKey })).body.unsubscribed).toBe(
      true,
    );
  });

  it('answers 404 for a link that is not one of ours, or was tampered with', async () => {
    expect((await fetch(`${baseUrl()}/unsubscribe/not-a-token`)).status).toBe(404);
    const forged = `${baseUrl()}/unsubscribe/${'A'.repeat(54)}`;
    const res = await fetch(forged, { method: 'POST' });
    expect(res.status).toBe(404);
    expect(await res.json()).toMatchObject({ name: 'not_found' });
  });
});

describe('broadcast drafts', () => {
  it('validates the body and names unknown segments and topics', async () => {
    const missing = await api.post('/broadcasts', { from: 'x' });
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(
      expect.arrayContaining(['from', 'segment_id', 'subject']),
    );
    const noContent = await api.post('/broadcasts', draft({ html: undefined }));
    expect(noContent.status).toBe(422);
    expect(noContent.body.errors[0].path).toBe('html');
    const unknown = await api.post(
      '/broadcasts',
      draft({ segment_id: '01900000-0000-7000-8000-000000000000', topic_id: '01900000-0000-7000-8000-000000000001' }),
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors.map((e: { path: string; code: string }) => `${e.path}:${e.code}`).sort()).toEqual([
      'segment_id:segment_not_found',
      'topic_id:topic_not_found',
    ]);
    const extra = await api.post('/broadcasts', draft({ audience: 'x' }));
    expect(extra.status).toBe(422);
  });

  it('edits and deletes drafts only; lists newest first; 404 for unknown ids', async () => {
    const a = (await api.post('/broadcasts', draft({ name: 'first' }))).body;
    const b = (await api.post('/broadcasts', draft({ name: 'second' }))).body;
    const edited = await api.patch(`/broadcasts/${a.id}`, { subject: 'Changed', reply_to: 'help@example.com' });
    expect(edited.status).toBe(200);
    expect(edited.body).toMatchObject({
      id: a.id,
      subject: 'Changed',
      reply_to: ['help@example.com'],
      status: 'draft',
    });
    expect((await api.patch(`/broadcasts/${a.id}`, {})).status).toBe(422);
    // the content (an item of its own) changes with the rest; a field not given stays
    const rewritten = await api.patch(`/broadcasts/${a.id}`, { html: '<p>Second draft</p>' });
    expect(rewritten.body).toMatchObject({ html: '<p>Second draft</p>', subject: 'Changed' });
    expect((await api.get(`/broadcasts/${a.id}`)).body).toMatchObject({
      html: '<p>Second draft</p>',
      text: a.text,
      subject: 'Changed',
    });
    expect(await api.patch(`/broadcasts/${a.id}`, { html: null, text: null })).toMatchObject({ status: 422 });
    const copy = await api.post(`/broadcasts/${a.id}/duplicate`);
    expect(copy.body).toMatchObject({ status: 'draft', html: '<p>Second draft</p>', subject: 'Changed' });
    expect((await api.delete(`/broadcasts/${copy.body.id}`)).status).toBe(200);

    const list = await api.get('/broadcasts?limit=2');
    expect(list.body).toMatchObject({ object: 'list', has_more: true });
    expect(list.body.data.map((x: { id: string }) => x.id)).toEqual([b.id, a.id]);

    const scheduledAt = new Date(Date.now() + 3_600_000).toISOString();
    const scheduled = await api.post(`/broadcasts/${b.id}/send`, { scheduled_at: scheduledAt });
    expect(scheduled.body).toMatchObject({ status: 'scheduled', scheduled_at: scheduledAt });
    expect(await api.patch(`/broadcasts/${b.id}`, { subject: 'Late' })).toMatchObject({
      status: 409,
      body: { name: 'application_error' },
    });
    expect((await api.delete(`/broadcasts/${b.id}`)).status).toBe(409);
    expect((await api.post(`/broadcasts/${b.id}/send`, {})).status).toBe(409);
    expect(await api.post(`/broadcasts/${b.id}/cancel`)).toMatchObject({ status: 200, body: { status: 'canceled' } });
    expect((await api.post(`/broadcasts/${b.id}/cancel`)).status).toBe(409);

    expect(await api.delete(`/broadcasts/${a.id}`)).toMatchObject({
      status: 200,
      body: { object: 'broadcast', id: a.id, deleted: true },
    });
    expect((await api.get(`/broadcasts/${a.id}`)).status).toBe(404);
    expect((await api.delete(`/broadcasts/${a.id}`)).status).toBe(404);
    expect((await api.get('/broadcasts/not-an-id')).status).toBe(422);
  });

  it("refuses to send from a domain that is not the project's", async () => {
    const created = (await api.post('/broadcasts', draft({ from: 'news@not-ours.example.org' }))).body;
    const res = await api.post(`/broadcasts/${created.id}/send`, {});
    expect(res.status).toBe(422);
    expect(res.body.errors[0]).toMatchObject({ code: 'domain_not_found', path: 'from' });
    expect((await api.get(`/broadcasts/${created.id}`)).body.status).toBe('draft');
  });
});

describe('the sending domain', () => {
  const newDomain = async (label: string, tld = 'example.com') => {
    const created = await api.post('/domains', { name: `${unique(label)}.${tld}` });
    expect(created.status).toBe(201);
    return created.body as { id: string; name: string };
  };

  it('must be verified and sending for a live key: each refusal names the reason, and the draft stays a draft', async () => {
    const failed = await newDomain('fails', 'invalid'); // the local SES fails names under .invalid
    await waitFor(
      () => api.post(`/domains/${failed.id}/verify`),
      (r) => r.body.status === 'failed',
    );
    const unverified = (await api.post('/broadcasts', draft({ from: `news@${failed.name}` }))).body;
    const refused = await api.post(`/broadcasts/${unverified.id}/send`, {});
    expect(refused).toMatchObject({
      status: 422,
      body: {
        errors: [{ code: 'domain_not_verified', path: 'from', message: expect.stringContaining('status failed') }],
      },
    });
    expect((await api.get(`/broadcasts/${unverified.id}`)).body.status).toBe('draft');

    const paused = await newDomain('paused');
    await waitFor(
      () => api.post(`/domains/${paused.id}/verify`),
      (r) => r.body.status === 'verified',
    );
    expect((await api.patch(`/domains/${paused.id}`, { capabilities: { sending: 'disabled' } })).status).toBe(200);
    const fromPaused = (await api.post('/broadcasts', draft({ from: `news@${paused.name}` }))).body;
    expect(await api.post(`/broadcasts/${fromPaused.id}/send`, {})).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'sending_disabled', path: 'from' }] },
    });
    expect((await api.patch(`/domains/${paused.id}`, { capabilities: { sending: 'enabled' } })).status).toBe(200);
    expect(
      await api.post(`/broadcasts/${fromPaused.id}/send`, {
        scheduled_at: new Date(Date.now() + 3_600_000).toISOString(),
      }),
    ).toMatchObject({ status: 200, body: { status: 'scheduled' } });
  });

  it('reports the domain and the schedule together, and a create that sends writes nothing when refused', async () => {
    const name = unique('refused-create');
    const farAhead = new Date(Date.now() + 40 * 24 * 3_600_000).toISOString();
    const res = await api.post(
      '/broadcasts',
      draft({ name, from: 'news@not-ours.example.org', scheduled_at: farAhead }),
    );
    expect(res.status).toBe(422);
    expect(res.body.errors.map((e: { code: string }) => e.code)).toEqual(['domain_not_found', 'too_far_ahead']);
    const all = await api.get('/broadcasts?limit=100');
    expect(all.body.data.map((b: { name: string | null }) => b.name)).not.toContain(name);
  });

  it('fails a scheduled broadcast whose domain was deleted before its time, sending nothing', async () => {
    const gone = await newDomain('gone');
    await waitFor(
      () => api.post(`/domains/${gone.id}/verify`),
      (r) => r.body.status === 'verified',
    );
    const contact = await api.post('/contacts', {
      email: `reader-${unique('gone')}@example.net`,
      segments: [{ id: segmentId }],
    });
    expect(contact.status).toBe(201);
    const subject = `Never sent ${unique('s')}`;
    // far enough ahead that a loaded machine still answers before the time (the request reads the domain and writes twice)
    const created = await api.post(
      '/broadcasts',
      draft({ from: `news@${gone.name}`, subject, scheduled_at: new Date(Date.now() + 5_000).toISOString() }),
    );
    expect(created).toMatchObject({ status: 201, body: { status: 'scheduled' } });
    expect((await api.delete(`/domains/${gone.id}`)).status).toBe(200);
    const ended = await waitFor(
      () => api.get(`/broadcasts/${created.body.id}`),
      (r) => !['scheduled', 'queued', 'sending'].includes(r.body.status),
      20_000,
    );
    expect(ended.body).toMatchObject({ status: 'failed', counters: { recipients: 0, sent: 0 } });
    expect((await mailViewer()).filter((e) => e.subject === subject)).toEqual([]);
  });
});
