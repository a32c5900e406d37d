/**
 * Contact properties (the project's typed schema of contact `properties`) over HTTP and through the
 * official `resend` SDK's `contactProperties.*`: CRUD, unique keys, the limit, contact writes
 * validated against the schema (422 naming `properties.<key>`), free-form properties while a project
 * has no schema, the read format of contacts, and a broadcast rendering a property and its fallback.
 * Each test uses a project of its own: a schema changes how every contact write of its project is
 * checked, so the shared test project must never get one.
 */
import { Resend } from 'resend';
import { api, baseUrl } from '../support/http';
import { verifiedDomain } from '../support/domains';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { uniqueName as unique } from '../support/unique';

const runtime = useRuntimeTable();

/** The SDK answers `{data, error}`; a test step must have no error. */
function data<T>(response: { data: T | null; error: unknown }): T {
  expect(response.error).toBeNull();
  return response.data as T;
}

describe('contact properties over HTTP', () => {
  it('creates, reads, lists, updates the fallback of and deletes a property; a key is unique in its project', async () => {
    const { key } = await createOtherProject();
    const created = await api.post(
      '/contact-properties',
      { key: 'plan', type: 'string', fallback_value: 'free' },
      { key },
    );
    expect(created).toMatchObject({
      status: 201,
      body: {
        object: 'contact_property',
        id: expect.any(String),
        key: 'plan',
        type: 'string',
        fallback_value: 'free',
        created_at: expect.any(String),
      },
    });
    const id = created.body.id;
    const seats = await api.post('/contact-properties', { key: 'seats', type: 'number' }, { key });
    expect(seats).toMatchObject({ status: 201, body: { key: 'seats', type: 'number', fallback_value: null } });

    const again = await api.post('/contact-properties', { key: 'plan', type: 'number' }, { key });
    expect(again).toMatchObject({
      status: 409,
      body: { name: 'application_error', errors: [{ code: 'contact_property_exists', path: 'key' }] },
    });

    expect(await api.get(`/contact-properties/${id}`, { key })).toMatchObject({ status: 200, body: created.body });
    const list = await api.get('/contact-properties', { key });
    expect(list).toMatchObject({ status: 200, body: { object: 'list', has_more: false } });
    expect(list.body.data.map((p: { key: string }) => p.key)).toEqual(['seats', 'plan']); // newest first
    const page = await api.get(`/contact-properties?limit=1&after=${seats.body.id}`, { key });
    expect(page.body).toMatchObject({ data: [{ key: 'plan' }], has_more: false });

    expect(await api.patch(`/contact-properties/${id}`, { fallback_value: 'basic' }, { key })).toMatchObject({
      status: 200,
      body: { id, key: 'plan', fallback_value: 'basic' },
    });
    const wrongType = await api.patch(`/contact-properties/${id}`, { fallback_value: 3 }, { key });
    expect(wrongType).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_type', path: 'fallback_value' }] },
    });
    const fixedKey = await api.patch(`/contact-properties/${id}`, { key: 'tier' }, { key });
    expect(fixedKey.status).toBe(422);

    expect(await api.delete(`/contact-properties/${id}`, { key })).toMatchObject({
      status: 200,
      body: { object: 'contact_property', id, deleted: true },
    });
    expect(await api.delete(`/contact-properties/${id}`, { key })).toMatchObject({
      status: 404,
      body: { name: 'not_found' },
    });
    expect(await api.get(`/contact-properties/${id}`, { key })).toMatchObject({ status: 404 });
    // another project never sees it
    expect((await api.get(`/contact-properties/${seats.body.id}`)).status).toBe(404);
  });

  it('refuses a malformed key, an unknown type and a fallback of the wrong type, naming the field', async () => {
    const { key } = await createOtherProject();
    const bad = await api.post('/contact-properties', { key: '1st', type: 'date' }, { key });
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['key', 'type']);
    const fallback = await api.post(
      '/contact-properties',
      { key: 'seats', type: 'number', fallback_value: 'many' },
      { key },
    );
    expect(fallback).toMatchObject({ status: 422, body: { errors: [{ path: 'fallback_value' }] } });
  });

  it('lets one of concurrent creates of a key win, and stops at 50 properties', async () => {
    const { key } = await createOtherProject();
    const racing = await Promise.all(
      Array.from({ length: 4 }, () => api.post('/contact-properties', { key: 'plan', type: 'string' }, { key })),
    );
    expect(racing.map((r) => r.status).sort()).toEqual([201, 409, 409, 409]);
    for (let i = 1; i < 50; i++)
      expect((await api.post('/contact-properties', { key: `p${i}`, type: 'number' }, { key })).status).toBe(201);
    const over = await api.post('/contact-properties', { key: 'p50', type: 'number' }, { key });
    expect(over).toMatchObject({ status: 409, body: { errors: [{ code: 'too_many_properties' }] } });
    const all = await api.get('/contact-properties?limit=100', { key });
    expect(all.body.data).toHaveLength(50);
  }, 120_000);
});

describe('contacts under a schema', () => {
  it('validates property keys and types on create and PATCH, naming properties.<key>; null clears a value', async () => {
    const { key } = await createOtherProject();
    const plan = (await api.post('/contact-properties', { key: 'plan', type: 'string' }, { key })).body;
    await api.post('/contact-properties', { key: 'seats', type: 'number', fallback_value: 1 }, { key });

    const bad = await api.post(
      '/contacts',
      { email: `${unique('bad')}@example.com`, properties: { plan: 3, seats: 'two', nickname: 'x' } },
      { key },
    );
    expect(bad.status).toBe(422);
    expect(bad.body.errors.map((e: { code: string; path: string }) => `${e.path}:${e.code}`).sort()).toEqual([
      'properties.nickname:unknown_property',
      'properties.plan:invalid_type',
      'properties.seats:invalid_type',
    ]);
    const boolean = await api.post(
      '/contacts',
      { email: `${unique('bool')}@example.com`, properties: { seats: true } },
      { key },
    );
    expect(boolean).toMatchObject({ status: 422, body: { errors: [{ path: 'properties.seats' }] } });

    const email = `${unique('ok')}@example.com`;
    const created = await api.post('/contacts', { email, properties: { plan: 'pro', seats: 3 } }, { key });
    expect(created).toMatchObject({ status: 201, body: { properties: { plan: 'pro', seats: 3 } } }); // writes answer the plain form
    const patch = await api.patch(`/contacts/${created.body.id}`, { email, properties: { seats: '4' } }, { key });
    expect(patch).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'invalid_type', path: 'properties.seats' }] },
    });
    const unknown = await api.patch(`/contacts/${email}`, { email, properties: { team: 'core' } }, { key });
    expect(unknown).toMatchObject({
      status: 422,
      body: { errors: [{ code: 'unknown_property', path: 'properties.team' }] },
    });
    const cleared = await api.patch(`/contacts/${created.body.id}`, { email, properties: { seats: null } }, { key });
    expect(cleared).toMatchObject({ status: 200, body: { properties: { plan: 'pro', seats: null } } });
    // a write without properties reads no schema and passes as before
    expect((await api.patch(`/contacts/${created.body.id}`, { email, first_name: 'Ada' }, { key })).status).toBe(200);

    // deleting a property in use: the values stay; the key is no longer accepted in writes
    expect((await api.delete(`/contact-properties/${plan.id}`, { key })).status).toBe(200);
    expect((await api.get(`/contacts/${created.body.id}?properties_format=plain`, { key })).body.properties).toEqual({
      plan: 'pro',
      seats: null,
    });
    const gone = await api.patch(`/contacts/${created.body.id}`, { email, properties: { plan: 'max' } }, { key });
    expect(gone).toMatchObject({ status: 422, body: { errors: [{ path: 'properties.plan' }] } });
  });

  it('keeps free-form properties while the project has no schema, and again after its last property is deleted', async () => {
    const { key } = await createOtherProject();
    const free = await api.post(
      '/contacts',
      { email: `${unique('free')}@example.com`, properties: { anything: true, count: 2, note: null } },
      { key },
    );
    expect(free).toMatchObject({ status: 201, body: { properties: { anything: true, count: 2, note: null } } });

    const only = (await api.post('/contact-properties', { key: 'plan', type: 'string' }, { key })).body;
    expect(
      (
        await api.post(
          '/contacts',
          { email: `${unique('typed')}@example.com`, properties: { anything: true } },
          { key },
        )
      ).status,
    ).toBe(422);
    expect((await api.delete(`/contact-properties/${only.id}`, { key })).status).toBe(200);
    expect(
      (
        await api.post(
          '/contacts',
          { email: `${unique('again')}@example.com`, properties: { anything: true } },
          { key },
        )
      ).status,
    ).toBe(201);
  });

  it("reads contacts' properties as Resend does by default, and plain with properties_format=plain", async () => {
    const { key } = await createOtherProject();
    await api.post('/contact-properties', { key: 'plan', type: 'string' }, { key });
    await api.post('/contact-properties', { key: 'seats', type: 'number' }, { key });
    const segment = (await api.post('/segments', { name: unique('segment') }, { key })).body;
    const email = `${unique('read')}@example.com`;
    const created = await api.post(
      '/contacts',
      { email, properties: { plan: 'pro', seats: 3 }, segments: [{ id: segment.id }] },
      { key },
    );
    expect(created.status).toBe(201);
    await api.patch(`/contacts/${email}`, { email, properties: { seats: null } }, { key });

    const typed = { plan: { type: 'string', value: 'pro' } }; // a null value is left out
    expect((await api.get(`/contacts/${created.body.id}`, { key })).body.properties).toEqual(typed);
    expect((await api.get(`/contacts/${email}?properties_format=resend`, { key })).body.properties).toEqual(typed);
    expect((await api.get(`/contacts/${created.body.id}?properties_format=plain`, { key })).body.properties).toEqual({
      plan: 'pro',
      seats: null,
    });
    expect((await api.get('/contacts', { key })).body.data[0].properties).toEqual(typed);
    expect((await api.get('/contacts?properties_format=plain', { key })).body.data[0].properties).toEqual({
      plan: 'pro',
      seats: null,
    });
    expect((await api.get(`/segments/${segment.id}/contacts`, { key })).body.data[0].properties).toEqual(typed);
    expect(
      (await api.get(`/segments/${segment.id}/contacts?properties_format=plain`, { key })).body.data[0].properties,
    ).toEqual({ plan: 'pro', seats: null });
    expect((await api.get(`/contacts/${email}?properties_format=json`, { key })).status).toBe(422);
  });
});

describe('contact properties through the resend SDK', () => {
  it('contactProperties.create/get/list/update/remove, and contacts.get with typed properties', async () => {
    const { key } = await createOtherProject();
    const resend = new Resend(key, { baseUrl: baseUrl() });
    const created = data(
      await resend.contactProperties.create({ key: 'company', type: 'string', fallbackValue: 'your team' }),
    );
    expect(created).toMatchObject({ object: 'contact_property', id: expect.any(String) });
    const score = data(await resend.contactProperties.create({ key: 'score', type: 'number' }));

    expect(data(await resend.contactProperties.get(created.id))).toMatchObject({
      object: 'contact_property',
      id: created.id,
      key: 'company',
      type: 'string',
      fallbackValue: 'your team',
      createdAt: expect.any(String),
    });
    const listed = data(await resend.contactProperties.list({ limit: 10 }));
    expect(listed).toMatchObject({ object: 'list', has_more: false });
    expect(listed.data.map((p) => [p.key, p.type, p.fallbackValue])).toEqual([
      ['score', 'number', null],
      ['company', 'string', 'your team'],
    ]);
    expect(data(await resend.contactProperties.update({ id: created.id, fallbackValue: 'friends' }))).toMatchObject({
      object: 'contact_property',
      id: created.id,
    });
    expect(data(await resend.contactProperties.get(created.id)).fallbackValue).toBe('friends');

    const duplicate = await resend.contactProperties.create({ key: 'score', type: 'number' });
    expect(duplicate.error).toMatchObject({ name: 'application_error', statusCode: 409 });

    const email = `${unique('sdk')}@example.com`;
    const contact = data(await resend.contacts.create({ email, properties: { company: 'Acme', score: 7 } }));
    expect(data(await resend.contacts.get(contact.id)).properties).toEqual({
      company: { type: 'string', value: 'Acme' },
      score: { type: 'number', value: 7 },
    });
    const invalid = await resend.contacts.create({
      email: `${unique('sdk')}@example.com`,
      properties: { score: 'high' },
    });
    expect(invalid.error).toMatchObject({ name: 'validation_error', statusCode: 422 });
    expect(invalid.error?.message).toContain('properties.score');

    expect(data(await resend.contactProperties.remove(score.id))).toMatchObject({
      object: 'contact_property',
      id: score.id,
      deleted: true,
    });
    expect((await resend.contactProperties.get(score.id)).error).toMatchObject({ name: 'not_found', statusCode: 404 });
  });
});

describe('a broadcast with contact properties', () => {
  interface StoredEmail {
    subject: string;
    destination: { to: string[] };
    body: { html?: string; text?: string };
  }
  const mailViewer = () =>
    fetch(`${runtime.mailViewerUrl}/store`)
      .then((r) => r.json() as Promise<{ emails: StoredEmail[] }>)
      .then((s) => s.emails);

  it("renders each contact's value, else the property's fallback_value", async () => {
    const { key } = await createOtherProject();
    const domain = await verifiedDomain(key, 'props');
    await api.post('/contact-properties', { key: 'plan', type: 'string', fallback_value: 'free' }, { key });
    await api.post('/contact-properties', { key: 'seats', type: 'number', fallback_value: 1 }, { key });
    await api.post('/contact-properties', { key: 'team', type: 'string' }, { key }); // no fallback: renders empty
    const segment = (await api.post('/segments', { name: unique('segment') }, { key })).body;
    const tag = unique('p');
    const address = (name: string) => `${name}-${tag}@${domain}`;
    for (const [name, properties] of [
      ['ada', { plan: 'pro', seats: 5, team: 'core' }],
      ['bob', {}],
    ] as const) {
      expect(
        (await api.post('/contacts', { email: address(name), segments: [{ id: segment.id }], properties }, { key }))
          .status,
      ).toBe(201);
    }
    const created = await api.post(
      '/broadcasts',
      {
        segment_id: segment.id,
        from: `Acme <news@${domain}>`,
        subject: `Plan ${tag} {{{plan}}}`,
        html: '<p>{{{plan}}}/{{{seats}}}/[{{{team}}}]</p>',
        text: '{{plan}} x{{seats}}',
      },
      { key },
    );
    expect(created.status).toBe(201);
    expect((await api.post(`/broadcasts/${created.body.id}/send`, {}, { key })).status).toBe(200);
    await waitFor(
      () => api.get(`/broadcasts/${created.body.id}`, { key }),
      (r) => r.body.status === 'sent',
      60_000,
    );
    const emails = await waitFor(
      mailViewer,
      (all) => all.filter((e) => e.subject.startsWith(`Plan ${tag}`)).length >= 2,
      60_000,
    );
    const to = (name: string) => emails.find((e) => e.destination.to[0] === address(name))!;
    expect(to('ada')).toMatchObject({ subject: `Plan ${tag} pro`, body: { text: 'pro x5' } });
    expect(to('ada').body.html).toContain('<p>pro/5/[core]</p>');
    expect(to('bob')).toMatchObject({ subject: `Plan ${tag} free`, body: { text: 'free x1' } });
    expect(to('bob').body.html).toContain('<p>free/1/[]</p>');
  }, 150_000);
});
