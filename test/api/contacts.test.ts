import * as keys from '../../shared/platform/db/keys';
import { getItem } from '../../shared/platform/db/table';
import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';

const runtime = useRuntimeTable();

let counter = 0;
/** A fresh address per test, so the suites' contacts never collide. */
const address = (name = 'person') => `${name}.${Date.now().toString(36)}${(counter++).toString(36)}@example.com`;
const ids = (body: { data: { id: string }[] }) => body.data.map((item) => item.id);
const UNKNOWN_ID = '01a20280-902e-70b0-b281-d9d957510688';

async function segment(name = 'Segment', key?: string): Promise<string> {
  return (await api.post('/segments', { name }, { key })).body.id;
}
async function topic(defaultSubscription: 'opt_in' | 'opt_out', key?: string): Promise<string> {
  return (
    await api.post(
      '/topics',
      { name: `Topic ${defaultSubscription}`, default_subscription: defaultSubscription },
      { key },
    )
  ).body.id;
}

describe('contacts', () => {
  it('creates a contact (201) with its segments and topics, readable by id and by address in any case', async () => {
    const [vip, news] = [await segment('VIP'), await segment('News')];
    const weekly = await topic('opt_in');
    const email = address('Ada');
    const created = await api.post('/contacts', {
      email: `  ${email}  `,
      first_name: 'Ada',
      last_name: 'Lovelace',
      properties: { plan: 'pro', seats: 3, trial: false, note: null },
      segments: [{ id: vip }, news], // the contract's objects, and a plain id as the Resend SDK sends in places
      topics: [{ id: weekly, subscription: 'opt_out' }],
    });
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'contact',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      email, // trimmed, case kept
      first_name: 'Ada',
      last_name: 'Lovelace',
      unsubscribed: false,
      properties: { plan: 'pro', seats: 3, trial: false, note: null },
      segment_ids: [vip, news],
      topics: [{ id: weekly, subscription: 'opt_out' }],
      created_at: expect.any(String),
      updated_at: created.body.created_at,
    });
    expect(await api.get(`/contacts/${created.body.id}?properties_format=plain`)).toMatchObject({
      status: 200,
      body: created.body,
    });
    expect(await api.get(`/contacts/${email.toUpperCase()}?properties_format=plain`)).toMatchObject({
      status: 200,
      body: created.body,
    });
    expect(await api.get(`/contacts/${encodeURIComponent(email)}?properties_format=plain`)).toMatchObject({
      status: 200,
      body: created.body,
    });
  });

  it('writes the items the broadcast fan-out reads: the contact, the address claim and one member item per segment', async () => {
    const vip = await segment('VIP');
    const weekly = await topic('opt_out');
    const email = address('Items');
    const { body: contact } = await api.post('/contacts', {
      email,
      segments: [vip],
      topics: [{ id: weekly, subscription: 'opt_in' }],
    });
    const pid = runtime.projectId;
    expect(await getItem(keys.contact(pid, contact.id))).toEqual({
      ...keys.contact(pid, contact.id),
      type: 'contact',
      project_id: pid,
      id: contact.id,
      email,
      first_name: null,
      last_name: null,
      unsubscribed: false,
      properties: {},
      segment_ids: [vip],
      topics: { [weekly]: 'opt_in' },
      created_at: contact.created_at,
      updated_at: contact.updated_at,
    });
    expect(await getItem(keys.contactEmail(pid, email))).toEqual({
      ...keys.contactEmail(pid, email),
      type: 'contact_email',
      project_id: pid,
      contact_id: contact.id,
    });
    expect(await getItem(keys.segmentMember(pid, vip, contact.id))).toEqual({
      ...keys.segmentMember(pid, vip, contact.id),
      type: 'segment_member',
      project_id: pid,
      segment_id: vip,
      contact_id: contact.id,
    });
  });

  it('allows one contact per address per project: a second create is 409, whatever the case', async () => {
    const email = address('twice');
    expect((await api.post('/contacts', { email })).status).toBe(201);
    const again = await api.post('/contacts', { email: email.toUpperCase(), first_name: 'Other' });
    expect(again.status).toBe(409);
    expect(again.body).toMatchObject({
      name: 'application_error',
      errors: [{ code: 'contact_exists', path: 'email' }],
    });
    // another project may have the same address
    const other = await createOtherProject();
    expect((await api.post('/contacts', { email }, { key: other.key })).status).toBe(201);
  });

  it('refuses invalid bodies with 422 naming the path, and writes nothing', async () => {
    const bad = await api.post('/contacts', {
      email: 'not-an-address',
      unsubscribed: 'yes',
      properties: { '1st': 'x' },
      nickname: 'x',
    });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual([
      'email',
      'nickname',
      'properties.1st',
      'unsubscribed',
    ]);

    const vip = await segment();
    const email = address('refs');
    const unknownSegment = await api.post('/contacts', { email, segments: [{ id: vip }, { id: UNKNOWN_ID }] });
    expect(unknownSegment.status).toBe(422);
    expect(unknownSegment.body.errors).toEqual([
      expect.objectContaining({ code: 'unknown_segment', path: 'segments.1.id' }),
    ]);
    const unknownPlain = await api.post('/contacts', { email, segments: [UNKNOWN_ID] });
    expect(unknownPlain.body.errors).toEqual([expect.objectContaining({ path: 'segments.0' })]);
    const unknownTopic = await api.post('/contacts', { email, topics: [{ id: UNKNOWN_ID, subscription: 'opt_in' }] });
    expect(unknownTopic.status).toBe(422);
    expect(unknownTopic.body.errors).toEqual([expect.objectContaining({ code: 'unknown_topic', path: 'topics.0.id' })]);
    const badSubscription = await api.post('/contacts', { email, topics: [{ id: UNKNOWN_ID, subscription: 'maybe' }] });
    expect(badSubscription.body.errors[0].path).toBe('topics.0.subscription');
    const twice = await api.post('/contacts', { email, segments: [vip, { id: vip }] });
    expect(twice.body.errors[0].path).toBe('segments.1.id');
    const tooMany = await api.post('/contacts', { email, segments: Array.from({ length: 26 }, () => UNKNOWN_ID) });
    expect(tooMany.body.errors[0].path).toBe('segments');

    // none of these claimed the address or joined the segment
    expect((await api.get(`/contacts/${email}`)).status).toBe(404);
    expect((await api.get(`/contacts?segment_id=${vip}`)).body.data).toEqual([]);
    expect((await api.post('/contacts', { email })).status).toBe(201);
  });

  it('PATCH requires email (the contract), as the Resend SDK finds out', async () => {
    const { body: contact } = await api.post('/contacts', { email: address() });
    const res = await api.patch(`/contacts/${contact.id}`, { first_name: 'No email' });
    expect(res.status).toBe(422);
    expect(res.body.errors).toEqual([expect.objectContaining({ path: 'email', code: 'invalid_type' })]);
  });

  it('PATCH keeps what is left out, clears names with null, merges properties, replaces segments and sets listed topics', async () => {
    const [a, b, c] = [await segment('a'), await segment('b'), await segment('c')];
    const [t1, t2] = [await topic('opt_in'), await topic('opt_in')];
    const email = address('patch');
    const { body: contact } = await api.post('/contacts', {
      email,
      first_name: 'Grace',
      last_name: 'Hopper',
      properties: { plan: 'free', seats: 1 },
      segments: [a, b],
      topics: [{ id: t1, subscription: 'opt_out' }],
    });
    const res = await api.patch(`/contacts/${contact.id}`, {
      email,
      last_name: null,
      unsubscribed: true,
      properties: { plan: 'pro', team: 'core' },
      segments: [{ id: b }, { id: c }],
      topics: [{ id: t2, subscription: 'opt_out' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: contact.id,
      email,
      first_name: 'Grace',
      last_name: null,
      unsubscribed: true,
      properties: { plan: 'pro', seats: 1, team: 'core' },
      segment_ids: [b, c],
      topics: [
        { id: t1, subscription: 'opt_out' },
        { id: t2, subscription: 'opt_out' },
      ],
      created_at: contact.created_at,
    });
    expect(await api.get(`/contacts/${contact.id}?properties_format=plain`)).toMatchObject({
      status: 200,
      body: res.body,
    });
    const empty = await api.patch(`/contacts/${contact.id}`, { email, properties: {}, topics: [] });
    expect(empty).toMatchObject({ status: 200, body: { properties: res.body.properties, topics: res.body.topics } });
    expect((await api.patch(`/contacts/${contact.id}/topics`, [])).status).toBe(200);
    // the memberships followed
    expect(ids((await api.get(`/contacts?segment_id=${a}`)).body)).toEqual([]);
    expect(ids((await api.get(`/contacts?segment_id=${b}`)).body)).toEqual([contact.id]);
    expect(ids((await api.get(`/segments/${c}/contacts`)).body)).toEqual([contact.id]);

    const unknown = await api.patch(`/contacts/${contact.id}`, { email, segments: [a, UNKNOWN_ID] });
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0].path).toBe('segments.1');
    expect((await api.get(`/contacts/${contact.id}`)).body.segment_ids).toEqual([b, c]); // nothing changed
    const unknownTopic = await api.patch(`/contacts/${email}`, {
      email,
      topics: [{ id: UNKNOWN_ID, subscription: 'opt_in' }],
    });
    expect(unknownTopic.body.errors[0]).toMatchObject({ code: 'unknown_topic', path: 'topics.0.id' });
    expect((await api.patch(`/contacts/${UNKNOWN_ID}`, { email })).status).toBe(404);
    expect((await api.patch(`/contacts/${address('nobody')}`, { email })).status).toBe(404);
  });

  it('PATCH with a new address moves the claim: the old address is free, a taken one is 409', async () => {
    const [oldEmail, newEmail, takenEmail] = [address('old'), address('new'), address('taken')];
    const { body: contact } = await api.post('/contacts', { email: oldEmail });
    await api.post('/contacts', { email: takenEmail });

    const taken = await api.patch(`/contacts/${contact.id}`, { email: takenEmail.toUpperCase() });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0]).toMatchObject({ code: 'contact_exists', path: 'email' });

    const moved = await api.patch(`/contacts/${oldEmail}`, { email: newEmail });
    expect(moved.status).toBe(200);
    expect(moved.body.email).toBe(newEmail);
    expect((await api.get(`/contacts/${newEmail}`)).body.id).toBe(contact.id);
    expect((await api.get(`/contacts/${oldEmail}`)).status).toBe(404);
    expect((await api.post('/contacts', { email: oldEmail })).status).toBe(201);

    // a change of case only keeps the claim
    const recased = await api.patch(`/contacts/${contact.id}`, { email: newEmail.toUpperCase() });
    expect(recased.body.email).toBe(newEmail.toUpperCase());
    expect((await api.get(`/contacts/${newEmail}`)).body.id).toBe(contact.id);
  });

  it('deletes a contact by id or address with its memberships and claim; a second delete is 404', async () => {
    const vip = await segment('VIP');
    const email = address('bye');
    const { body: contact } = await api.post('/contacts', { email, segments: [vip] });
    const res = await api.delete(`/contacts/${email}`);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ object: 'contact', id: contact.id, contact: contact.id, deleted: true });
    expect((await api.delete(`/contacts/${contact.id}`)).status).toBe(404);
    expect((await api.get(`/contacts/${contact.id}`)).status).toBe(404);
    expect((await api.get(`/contacts?segment_id=${vip}`)).body.data).toEqual([]);
    expect(await getItem(keys.segmentMember(runtime.projectId, vip, contact.id))).toBeUndefined();
    expect((await api.post('/contacts', { email })).status).toBe(201); // the address is free again
  });

  it("lists newest first with paging, and a segment's members with ?segment_id= or /segments/{id}/contacts", async () => {
    const other = await createOtherProject();
    const vip = await segment('VIP', other.key);
    const created: string[] = [];
    for (let i = 0; i < 5; i++) {
      const body = { email: address(`list${i}`), ...(i % 2 === 0 ? { segments: [vip] } : {}) };
      created.push((await api.post('/contacts', body, { key: other.key })).body.id);
    }
    const newestFirst = [...created].reverse();
    const first = await api.get('/contacts?limit=2', { key: other.key });
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(ids(first.body)).toEqual(newestFirst.slice(0, 2));
    const next = await api.get(`/contacts?limit=2&after=${newestFirst[1]}`, { key: other.key });
    expect(ids(next.body)).toEqual(newestFirst.slice(2, 4));
    const back = await api.get(`/contacts?limit=2&before=${newestFirst[4]}`, { key: other.key });
    expect(ids(back.body)).toEqual(newestFirst.slice(2, 4));

    const members = [created[4], created[2], created[0]];
    const page = await api.get(`/contacts?segment_id=${vip}&limit=2`, { key: other.key });
    expect(ids(page.body)).toEqual(members.slice(0, 2));
    expect(page.body.has_more).toBe(true);
    const rest = await api.get(`/segments/${vip}/contacts?after=${members[1]}`, { key: other.key });
    expect(ids(rest.body)).toEqual(members.slice(2));
    expect(rest.body.has_more).toBe(false);
    expect(rest.body.data[0]).toMatchObject({ object: 'contact', segment_ids: [vip] });

    expect((await api.get(`/contacts?segment_id=${UNKNOWN_ID}`, { key: other.key })).status).toBe(404);
    expect((await api.get(`/segments/${vip}/contacts`)).status).toBe(404); // another project's segment
    expect((await api.get('/contacts?segment_id=nope')).body.errors[0].path).toBe('segment_id');
  });

  it('adds a contact to a segment (idempotent), lists its segments and removes it again', async () => {
    const [a, b] = [await segment('a'), await segment('b')];
    const email = address('member');
    const { body: contact } = await api.post('/contacts', { email });

    const added = await api.post(`/contacts/${contact.id}/segments/${a}`);
    expect(added.status).toBe(200);
    expect(added.body).toEqual({ object: 'contact_segment', id: a, contact_id: contact.id, segment_id: a });
    expect((await api.post(`/contacts/${email}/segments/${a}`)).status).toBe(200); // already in it
    await api.post(`/contacts/${email}/segments/${b}`);
    expect((await api.get(`/contacts/${contact.id}`)).body.segment_ids).toEqual([a, b]);

    const listed = await api.get(`/contacts/${email}/segments`);
    expect(listed.status).toBe(200);
    expect(listed.body).toMatchObject({
      object: 'list',
      has_more: false,
      data: [
        { object: 'segment', id: b, name: 'b' },
        { object: 'segment', id: a, name: 'a' },
      ],
    });
    expect(ids((await api.get(`/contacts/${email}/segments?limit=1&after=${b}`)).body)).toEqual([a]);

    const removed = await api.delete(`/contacts/${contact.id}/segments/${a}`);
    expect(removed).toMatchObject({ status: 200, body: { id: a, contact_id: contact.id, deleted: true } });
    expect((await api.delete(`/contacts/${contact.id}/segments/${a}`)).status).toBe(404);
    expect(ids((await api.get(`/contacts?segment_id=${a}`)).body)).toEqual([]);
    expect(ids((await api.get(`/contacts?segment_id=${b}`)).body)).toEqual([contact.id]);

    const unknown = await api.post(`/contacts/${contact.id}/segments/${UNKNOWN_ID}`);
    expect(unknown.status).toBe(404);
    expect(unknown.body.errors[0].path).toBe('segment_id');
    expect((await api.post(`/contacts/${UNKNOWN_ID}/segments/${a}`)).status).toBe(404);
    expect((await api.get(`/contacts/${UNKNOWN_ID}/segments`)).status).toBe(404);
  });

  it('keeps segment_ids and the member items in step under concurrent changes', async () => {
    const segments = [await segment('p1'), await segment('p2'), await segment('p3'), await segment('p4')];
    const { body: contact } = await api.post('/contacts', { email: address('busy') });
    const results = await Promise.all(segments.map((s) => api.post(`/contacts/${contact.id}/segments/${s}`)));
    expect(results.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect([...(await api.get(`/contacts/${contact.id}`)).body.segment_ids].sort()).toEqual([...segments].sort());
    for (const s of segments) expect(ids((await api.get(`/contacts?segment_id=${s}`)).body)).toEqual([contact.id]);
  });

  it('shows every topic with the effective subscription and sets subscriptions from a bare array or {topics}', async () => {
    const other = await createOtherProject();
    const [optIn, optOut, untouched] = [
      await topic('opt_in', other.key),
      await topic('opt_out', other.key),
      await topic('opt_in', other.key),
    ];
    const email = address('topics');
    const { body: contact } = await api.post(
      '/contacts',
      { email, topics: [{ id: optIn, subscription: 'opt_out' }] },
      { key: other.key },
    );

    const before = await api.get(`/contacts/${contact.id}/topics`, { key: other.key });
    expect(before.status).toBe(200);
    expect(before.body).toEqual({
      object: 'list',
      has_more: false,
      data: [
        { id: untouched, name: 'Topic opt_in', description: null, subscription: 'opt_in' }, // the default
        { id: optOut, name: 'Topic opt_out', description: null, subscription: 'opt_out' }, // the default
        { id: optIn, name: 'Topic opt_in', description: null, subscription: 'opt_out' }, // explicit
      ],
    });

    const bare = await api.patch(`/contacts/${email}/topics`, [{ id: optOut, subscription: 'opt_in' }], {
      key: other.key,
    });
    expect(bare.status).toBe(200);
    expect(bare.body).toMatchObject({
      object: 'contact',
      id: contact.id,
      topics: [
        { id: optIn, subscription: 'opt_out' },
        { id: optOut, subscription: 'opt_in' },
      ],
    });
    const wrapped = await api.patch(
      `/contacts/${contact.id}/topics`,
      { topics: [{ id: optIn, subscription: 'opt_in' }] },
      { key: other.key },
    );
    expect(wrapped.status).toBe(200);
    const after = await api.get(`/contacts/${contact.id}/topics`, { key: other.key });
    expect(after.body.data.map((t: { subscription: string }) => t.subscription)).toEqual([
      'opt_in',
      'opt_in',
      'opt_in',
    ]);

    const unknown = await api.patch(
      `/contacts/${contact.id}/topics`,
      [
        { id: optIn, subscription: 'opt_out' },
        { id: UNKNOWN_ID, subscription: 'opt_out' },
      ],
      { key: other.key },
    );
    expect(unknown.status).toBe(422);
    expect(unknown.body.errors[0]).toMatchObject({ code: 'unknown_topic', path: 'topics.1.id' });
    const badValue = await api.patch(
      `/contacts/${contact.id}/topics`,
      { topics: [{ id: optIn, subscription: 'no' }] },
      { key: other.key },
    );
    expect(badValue.body.errors[0].path).toBe('topics.0.subscription');
    expect((await api.get(`/contacts/${contact.id}`, { key: other.key })).body.topics).toContainEqual({
      id: optIn,
      subscription: 'opt_in',
    });

    // a deleted topic disappears from the list; the contact's explicit choice for it is ignored
    await api.delete(`/topics/${optIn}`, { key: other.key });
    expect(ids((await api.get(`/contacts/${contact.id}/topics`, { key: other.key })).body)).toEqual([
      untouched,
      optOut,
    ]);
  });

  it("never shows or changes another project's contact (404)", async () => {
    const other = await createOtherProject();
    const email = address('mine');
    const { body: mine } = await api.post('/contacts', { email });
    for (const path of [
      `/contacts/${mine.id}`,
      `/contacts/${email}`,
      `/contacts/${mine.id}/segments`,
      `/contacts/${mine.id}/topics`,
    ]) {
      expect((await api.get(path, { key: other.key })).status).toBe(404);
    }
    expect((await api.patch(`/contacts/${mine.id}`, { email }, { key: other.key })).status).toBe(404);
    expect((await api.delete(`/contacts/${email}`, { key: other.key })).status).toBe(404);
    expect((await api.get(`/contacts/${mine.id}`)).status).toBe(200);
    expect((await api.get('/contacts/not-an-id-or-address')).body.errors[0].path).toBe('contact_id');
  });
});

describe('contact values as headers and DynamoDB take them (issue 16)', () => {
  it('refuses CR, LF, NUL and U+2028/2029 in first_name and last_name (they render into subjects) with 422, on create and update', async () => {
    for (const name of [
      'Ada\r\nBcc: victim@evil.example',
      'Ada\nX: 1',
      'Ada\u0000B',
      'Ada\u2028Bcc: victim@evil.example',
      'Ada\u2029Lovelace',
    ]) {
      for (const field of ['first_name', 'last_name']) {
        const created = await api.post('/contacts', { email: address('crlf'), [field]: name });
        expect([name, created.status]).toEqual([name, 422]);
        expect(created.body.errors[0].path).toBe(field);
      }
    }
    const contact = await api.post('/contacts', { email: address('crlf'), first_name: 'Ada' });
    expect(contact.status).toBe(201);
    const updated = await api.patch(`/contacts/${contact.body.id}`, { first_name: 'Ada\r\nBcc: victim@evil.example' });
    expect(updated.status).toBe(422);
    expect((await api.get(`/contacts/${contact.body.id}`)).body.first_name).toBe('Ada');
  });

  it('refuses property numbers outside what DynamoDB stores (1e300, 1e-200, 2^64) with 422, never 500', async () => {
    for (const value of [1e300, -1e300, 1e-200, 2 ** 64, 2 ** 53]) {
      const res = await api.post('/contacts', { email: address('number'), properties: { score: value } });
      expect([value, res.status]).toEqual([value, 422]);
      expect(res.body.errors[0].path).toBe('properties.score');
    }
    const fine = await api.post('/contacts', {
      email: address('number'),
      properties: { score: 9007199254740991, tiny: 1e-130, zero: 0, neg: -2.5 },
    });
    expect(fine.status).toBe(201);
    expect(fine.body.properties).toEqual({ score: 9007199254740991, tiny: 1e-130, zero: 0, neg: -2.5 });
  });
});

describe('contact values rendered into a broadcast subject (issue 16)', () => {
  it('cannot start a header line: a property with CRLF and a first_name stored with one before the rule render with spaces', async () => {
    const { updateItem, update } = await import('../../shared/platform/db/table');
    const { waitFor } = await import('../support/wait');
    const tag = Date.now().toString(36);
    const domain = `crlf-${tag}.example.com`;
    const created = await api.post('/domains', { name: domain });
    expect(created.status).toBe(201);
    await waitFor(
      () => api.post(`/domains/${created.body.id}/verify`),
      (r) => r.body.status === 'verified',
    );
    const segmentId = await segment(`crlf ${tag}`);
    const contact = await api.post('/contacts', {
      email: `success+${tag}@simulator.amazonses.com`,
      first_name: 'Ada',
      segments: [segmentId],
      properties: { note: 'vip\r\nBcc: victim@evil.example' },
    });
    expect(contact.status).toBe(201);
    // as a contact written before names were checked: the name itself carries a header line
    await updateItem(
      update(keys.contact(runtime.projectId, contact.body.id), {
        set: { first_name: 'Ada\r\nCc: victim@evil.example\u2028X: 1' },
      }),
    );

    const broadcast = await api.post('/broadcasts', {
      segment_id: segmentId,
      from: `Acme <news@${domain}>`,
      subject: `News ${tag} for {{{FIRST_NAME}}} ({{{note}}})`,
      text: 'Hi {{{FIRST_NAME}}}',
    });
    expect(broadcast.status).toBe(201);
    expect((await api.post(`/broadcasts/${broadcast.body.id}/send`, {})).status).toBe(200);
    await waitFor(
      () => api.get(`/broadcasts/${broadcast.body.id}`),
      (r) => r.body.status === 'sent',
      30_000,
    );
    const email = await waitFor(
      async () =>
        (await api.get('/emails?limit=100')).body.data.find(
          (e: { broadcast_id?: string }) => e.broadcast_id === broadcast.body.id,
        ),
      (e) => !!e,
    );
    expect(email.subject).toBe(`News ${tag} for Ada Cc: victim@evil.example X: 1 (vip Bcc: victim@evil.example)`);
    expect([...email.cc, ...email.bcc]).toEqual([]);
    // the list shows no content: the email itself keeps the value in its body as it is
    expect((await api.get(`/emails/${email.id}`)).body.text).toContain('\r\n');
  }, 60_000);
});
