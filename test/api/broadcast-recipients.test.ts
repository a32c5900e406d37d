/**
 * GET /broadcasts/{broadcast_id}/recipients, over HTTP and through the official SDK
 * (`resend.broadcasts.recipients`): one entry per contact the fan-out handled, sent ones with
 * their email's id and status now, skipped ones with the reason; pages by contact id. And
 * `audience_id` (Resend's older name of the segment id) in every answer that holds a broadcast.
 */
import { Resend } from 'resend';
import { verifiedDomain } from '../support/domains';
import { api, baseUrl } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { uniqueName as unique } from '../support/unique';

useRuntimeTable();

/** `data` of an SDK answer, failing the test with the SDK's error if there is one. */
function dataOf<T>(answer: { data: T | null; error: unknown }): T {
  expect(answer.error).toBeNull();
  expect(answer.data).not.toBeNull();
  return answer.data as T;
}

let project: { projectId: string; key: string };
let resend: Resend;
let domain: string;
let segmentId: string;
let broadcastId: string;
const tag = unique('r');
/** the segment's contacts, in the order they were made (ids are time-ordered) */
const people = {
  ada: `success+${tag}@simulator.amazonses.com`,
  bob: `bounce+${tag}@simulator.amazonses.com`,
  cyd: `click+${tag}@simulator.amazonses.com`,
  dee: `dee-${tag}@example.com`, // opted out of the broadcast's topic
  eve: `eve-${tag}@example.com`, // suppressed
};
const contactIds: Record<string, string> = {};
const as = () => ({ key: project.key });
const recipientsPath = (query = '') => `/broadcasts/${broadcastId}/recipients${query}`;

beforeAll(async () => {
  project = await createOtherProject();
  resend = new Resend(project.key, { baseUrl: baseUrl() });
  domain = await verifiedDomain(project.key, 'recipients', { click_tracking: true });
  segmentId = (await api.post('/segments', { name: unique('segment') }, as())).body.id;
  const topicId = (await api.post('/topics', { name: unique('news'), default_subscription: 'opt_in' }, as())).body.id;
  for (const [name, email] of Object.entries(people)) {
    const topics = name === 'dee' ? [{ id: topicId, subscription: 'opt_out' }] : undefined;
    const res = await api.post(
      '/contacts',
      { email, first_name: name, segments: [{ id: segmentId }], ...(topics ? { topics } : {}) },
      as(),
    );
    expect(res.status).toBe(201);
    contactIds[name] = res.body.id;
  }
  expect((await api.post('/suppressions', { email: people.eve }, as())).status).toBe(201);
  const created = await api.post(
    '/broadcasts',
    {
      segment_id: segmentId,
      topic_id: topicId,
      from: `News <news@${domain}>`,
      subject: 'Recipients',
      html: '<p>Hi {{{FIRST_NAME}}}</p><a href="https://example.com/news">news</a>',
      send: true,
    },
    as(),
  );
  expect(created.status).toBe(201);
  broadcastId = created.body.id;
  await waitFor(
    () => api.get(`/broadcasts/${broadcastId}`, as()).then((r) => r.body),
    (b) => b.status === 'sent',
    60_000,
    200,
  );
  // the emails' statuses settle as the local SES's events come back
  await waitFor(
    () => api.get(recipientsPath(), as()).then((r) => r.body.data.map((r: { status: string }) => r.status).sort()),
    (statuses) =>
      JSON.stringify(statuses) === JSON.stringify(['bounced', 'clicked', 'delivered', 'skipped', 'skipped']),
    60_000,
    200,
  );
}, 180_000);

const expected = () => ({
  ada: { outcome: 'sent', status: 'delivered', reason: null, email_id: expect.any(String) },
  bob: { outcome: 'sent', status: 'bounced', reason: null, email_id: expect.any(String) },
  cyd: { outcome: 'sent', status: 'clicked', reason: null, email_id: expect.any(String) },
  dee: { outcome: 'skipped', status: 'skipped', reason: 'topic_opt_out', email_id: null },
  eve: { outcome: 'skipped', status: 'skipped', reason: 'suppressed', email_id: null },
});
/** newest contact first: the order of the list */
const newestFirst = () => Object.keys(people).reverse() as (keyof typeof people)[];

describe('GET /broadcasts/{broadcast_id}/recipients', () => {
  it('lists every contact of the segment, newest first: sent ones with their email and its status, skipped ones with the reason', async () => {
    const res = await api.get(recipientsPath(), as());
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({ object: 'list', has_more: false });
    expect(res.body.data).toEqual(
      newestFirst().map((name) => ({
        object: 'broadcast_recipient',
        id: contactIds[name],
        contact_id: contactIds[name],
        email: people[name],
        created_at: expect.any(String),
        ...expected()[name],
      })),
    );
    // a sent recipient's email_id is its email, whose status the list shows
    for (const recipient of res.body.data.filter((r: { email_id: string | null }) => r.email_id)) {
      const email = await api.get(`/emails/${recipient.email_id}`, as());
      expect(email.body).toMatchObject({
        to: [recipient.email],
        broadcast_id: broadcastId,
        last_event: recipient.status,
      });
    }
  });

  it('pages by contact id (after, before) and narrows to one address (email, any case)', async () => {
    const all = (await api.get(recipientsPath(), as())).body.data.map((r: { id: string }) => r.id);
    const first = await api.get(recipientsPath('?limit=2'), as());
    expect(first.body).toMatchObject({ has_more: true });
    expect(first.body.data.map((r: { id: string }) => r.id)).toEqual(all.slice(0, 2));
    const second = await api.get(recipientsPath(`?limit=2&after=${all[1]}`), as());
    expect(second.body.data.map((r: { id: string }) => r.id)).toEqual(all.slice(2, 4));
    const last = await api.get(recipientsPath(`?limit=2&after=${all[3]}`), as());
    expect(last.body).toMatchObject({ has_more: false, data: [{ id: all[4] }] });
    const back = await api.get(recipientsPath(`?limit=2&before=${all[2]}`), as());
    expect(back.body.data.map((r: { id: string }) => r.id)).toEqual(all.slice(0, 2));

    const one = await api.get(recipientsPath(`?email=${encodeURIComponent(people.bob.toUpperCase())}`), as());
    expect(one.body).toEqual({
      object: 'list',
      has_more: false,
      data: [expect.objectContaining({ id: contactIds.bob, status: 'bounced' })],
    });
    expect(
      (await api.get(recipientsPath(`?email=${encodeURIComponent(`nobody-${tag}@example.com`)}`), as())).body,
    ).toEqual({ object: 'list', has_more: false, data: [] });
  });

  it("answers a draft's empty list, and 404 for an unknown broadcast or another project's", async () => {
    const draft = await api.post(
      '/broadcasts',
      { segment_id: segmentId, from: `news@${domain}`, subject: 'Draft', text: 'Hi' },
      as(),
    );
    expect(await api.get(`/broadcasts/${draft.body.id}/recipients`, as())).toMatchObject({
      status: 200,
      body: { object: 'list', data: [], has_more: false },
    });
    expect(await api.get('/broadcasts/01900000-0000-7000-8000-00000000abcd/recipients', as())).toMatchObject({
      status: 404,
      body: { name: 'not_found' },
    });
    expect(await api.get(recipientsPath())).toMatchObject({ status: 404, body: { name: 'not_found' } }); // the default project's key
  });

  it("takes Resend's type and bounce_type (not applied), refusing values Resend does not have", async () => {
    const typed = await api.get(recipientsPath('?type=opened&bounce_type=permanent'), as());
    expect(typed.status).toBe(200);
    expect(typed.body.data).toHaveLength(Object.keys(people).length);
    expect(await api.get(recipientsPath('?type=read'), as())).toMatchObject({
      status: 422,
      body: { name: 'validation_error', errors: [expect.objectContaining({ path: 'type' })] },
    });
    expect(await api.get(recipientsPath('?limit=0'), as())).toMatchObject({ status: 422 });
  });
});

describe('resend.broadcasts.recipients', () => {
  it('lists the recipients with the SDK, page by page', async () => {
    const page = dataOf(await resend.broadcasts.recipients(broadcastId, { type: 'sent' }));
    expect(page).toMatchObject({ object: 'list', has_more: false });
    expect(page.data).toEqual(
      newestFirst().map((name) =>
        expect.objectContaining({
          id: contactIds[name],
          contact_id: contactIds[name],
          email: people[name],
          ...expected()[name],
        }),
      ),
    );

    const seen: string[] = [];
    let after: string | undefined;
    for (let more = true; more; ) {
      const next = dataOf(
        await resend.broadcasts.recipients(broadcastId, { type: 'delivered', limit: 2, ...(after ? { after } : {}) }),
      );
      seen.push(...next.data.map((r) => r.id));
      after = next.data.at(-1)?.id;
      more = next.has_more;
    }
    expect(seen).toEqual(page.data.map((r) => r.id));

    const ada = dataOf(await resend.broadcasts.recipients(broadcastId, { type: 'delivered', email: people.ada }));
    expect(ada.data).toEqual([expect.objectContaining({ id: contactIds.ada, email: people.ada, status: 'delivered' })]);
  });
});

describe('audience_id', () => {
  it('is the segment id in every answer that holds a broadcast', async () => {
    const other = (await api.post('/segments', { name: unique('other') }, as())).body.id;
    const same = (b: { segment_id: string; audience_id: string }) => expect(b.audience_id).toBe(b.segment_id);
    const created = await api.post(
      '/broadcasts',
      { segment_id: segmentId, from: `news@${domain}`, subject: 'Audience', text: 'Hi' },
      as(),
    );
    expect(created.body).toMatchObject({ segment_id: segmentId, audience_id: segmentId });
    const id = created.body.id;
    const updated = await api.patch(`/broadcasts/${id}`, { segment_id: other }, as());
    expect(updated.body).toMatchObject({ segment_id: other, audience_id: other });
    same((await api.get(`/broadcasts/${id}`, as())).body);
    for (const b of (await api.get('/broadcasts?limit=100', as())).body.data) same(b);
    same((await api.post(`/broadcasts/${id}/duplicate`, undefined, as())).body);
    same(
      (await api.post(`/broadcasts/${id}/send`, { scheduled_at: new Date(Date.now() + 3_600_000).toISOString() }, as()))
        .body,
    );
    same((await api.post(`/broadcasts/${id}/cancel`, undefined, as())).body);
    expect(dataOf(await resend.broadcasts.get(id))).toMatchObject({ audience_id: other });
  });
});
