import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';

useRuntimeTable();

let counter = 0;
const uniqueAlias = (label: string) => `${label}-${Date.now().toString(36)}-${counter++}`;

const orderTemplate = (alias?: string) => ({
  name: 'Order confirmation',
  ...(alias ? { alias } : {}),
  from: 'Shop <orders@shop.example.com>',
  subject: 'Order {{ORDER}}',
  reply_to: 'help@shop.example.com',
  html: '<p>{{{PRODUCT}}} costs {{PRICE}}</p>',
  text: 'Total: {{PRICE}}',
  variables: [
    { key: 'PRODUCT', type: 'string', fallback_value: 'item' },
    { key: 'PRICE', type: 'number', fallback_value: 25 },
    { key: 'ORDER', type: 'string' },
  ],
});

describe('templates', () => {
  it('creates a draft (201) and reads it back by id and by alias', async () => {
    const alias = uniqueAlias('order');
    const created = await api.post('/templates', orderTemplate(alias));
    expect(created.status).toBe(201);
    expect(created.body).toEqual({
      object: 'template',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      name: 'Order confirmation',
      alias,
      status: 'draft',
      from: 'Shop <orders@shop.example.com>',
      subject: 'Order {{ORDER}}',
      reply_to: ['help@shop.example.com'],
      html: '<p>{{{PRODUCT}}} costs {{PRICE}}</p>',
      text: 'Total: {{PRICE}}',
      variables: [
        {
          key: 'PRODUCT',
          type: 'string',
          fallback_value: 'item',
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        {
          key: 'PRICE',
          type: 'number',
          fallback_value: 25,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
        {
          key: 'ORDER',
          type: 'string',
          fallback_value: null,
          created_at: expect.any(String),
          updated_at: expect.any(String),
        },
      ],
      published_at: null,
      has_unpublished_versions: false,
      current_version_id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      created_at: expect.any(String),
      updated_at: created.body.created_at,
    });
    expect(await api.get(`/templates/${created.body.id}`)).toMatchObject({ status: 200, body: created.body });
    expect(await api.get(`/templates/${alias}`)).toMatchObject({ status: 200, body: created.body });
  });

  it('needs only name and html; optional fields read back as null and []', async () => {
    const res = await api.post('/templates', { name: 'Bare', html: '<p>Hi</p>' });
    expect(res.status).toBe(201);
    expect(res.body).toMatchObject({
      alias: null,
      from: null,
      subject: null,
      reply_to: null,
      text: null,
      variables: [],
      status: 'draft',
    });

    const missing = await api.post('/templates', {});
    expect(missing.status).toBe(422);
    expect(missing.body.errors.map((e: { path: string }) => e.path).sort()).toEqual(['html', 'name']);
  });

  it('validates fields: variables (duplicates, fallback type, reserved keys), alias syntax, addresses, unknown keys', async () => {
    const cases: [Record<string, unknown>, string, string?][] = [
      [
        {
          variables: [
            { key: 'A', type: 'string' },
            { key: 'A', type: 'number' },
          ],
        },
        'variables.1.key',
        'custom',
      ],
      [{ variables: [{ key: 'PRICE', type: 'number', fallback_value: 'ten' }] }, 'variables.0.fallback_value'],
      [{ variables: [{ key: 'NAME', type: 'string', fallback_value: 3 }] }, 'variables.0.fallback_value'],
      [{ variables: [{ key: 'EMAIL', type: 'string' }] }, 'variables.0.key'],
      [{ variables: [{ key: 'first name', type: 'string' }] }, 'variables.0.key'],
      [{ variables: [{ key: 'A', type: 'boolean' }] }, 'variables.0.type'],
      [{ alias: 'Has Spaces' }, 'alias'],
      [{ alias: '0198c2a4-0000-7000-8000-000000000000' }, 'alias'],
      [{ from: 'not an address' }, 'from'],
      [{ reply_to: ['ok@example.com', 'nope'] }, 'reply_to'],
      [{ colour: 'red' }, 'colour', 'unrecognized_keys'],
    ];
    for (const [extra, path, code] of cases) {
      const res = await api.post('/templates', { name: 'Bad', html: '<p>x</p>', ...extra });
      expect(res.status).toBe(422);
      expect(res.body.name).toBe('validation_error');
      expect(
        res.body.errors
          .map((e: { path: string }) => e.path)
          .some((p: string) => p === path || p.startsWith(`${path}.`)),
      ).toBe(true);
      if (code) expect(res.body.errors.find((e: { path: string }) => e.path === path).code).toBe(code);
    }
  });

  it('takes content that uses a variable it does not declare, as Resend does; a send must then give it', async () => {
    const res = await api.post('/templates', {
      name: 'Loose',
      subject: 'Hi {{NAME}}',
      html: '<p>{{{NAME}}} {{{CODE}}}</p>',
      variables: [{ key: 'NAME', type: 'string', fallback_value: 'there' }],
    });
    expect(res.status).toBe(201);
    expect(res.body.variables.map((v: { key: string }) => v.key)).toEqual(['NAME']); // only the declared ones are listed
  });

  it('refuses a template too large for one item with 413', async () => {
    const res = await api.post('/templates', { name: 'Huge', html: `<p>${'x'.repeat(160 * 1024)}</p>` });
    expect(res.status).toBe(413);
    expect(res.body.errors[0].code).toBe('template_too_large');
  });

  it('keeps aliases unique in the project (409) and frees them on delete', async () => {
    const alias = uniqueAlias('welcome');
    const first = await api.post('/templates', { name: 'One', alias, html: '<p>1</p>' });
    expect(first.status).toBe(201);
    const second = await api.post('/templates', { name: 'Two', alias, html: '<p>2</p>' });
    expect(second.status).toBe(409);
    expect(second.body).toMatchObject({
      name: 'application_error',
      errors: [{ code: 'template_alias_taken', path: 'alias' }],
    });

    // another project may use the same alias
    const other = await createOtherProject();
    expect((await api.post('/templates', { name: 'Theirs', alias, html: '<p>x</p>' }, { key: other.key })).status).toBe(
      201,
    );

    expect(await api.delete(`/templates/${alias}`)).toMatchObject({
      status: 200,
      body: { object: 'template', id: first.body.id, deleted: true },
    });
    expect((await api.get(`/templates/${alias}`)).status).toBe(404);
    expect((await api.get(`/templates/${first.body.id}`)).status).toBe(404);
    expect((await api.delete(`/templates/${first.body.id}`)).status).toBe(404);
    expect((await api.post('/templates', { name: 'Three', alias, html: '<p>3</p>' })).status).toBe(201);
  });

  it('PATCH changes the draft: fields, variables, and moves or clears the alias', async () => {
    const alias = uniqueAlias('patch');
    const { body: t } = await api.post('/templates', orderTemplate(alias));
    const renamed = uniqueAlias('moved');
    const res = await api.patch(`/templates/${alias}`, {
      name: 'Renamed',
      alias: renamed,
      subject: null,
      html: '<p>{{{PRODUCT}}}</p>',
      text: null,
      variables: [{ key: 'PRODUCT', type: 'string', fallback_value: 'thing' }],
    });
    expect(res.status).toBe(200);
    expect(res.body).toMatchObject({
      id: t.id,
      name: 'Renamed',
      alias: renamed,
      subject: null,
      text: null,
      html: '<p>{{{PRODUCT}}}</p>',
      from: t.from,
      status: 'draft',
    });
    expect(res.body.variables).toEqual([
      expect.objectContaining({ key: 'PRODUCT', fallback_value: 'thing', created_at: t.variables[0].created_at }),
    ]);
    expect(res.body.current_version_id).not.toBe(t.current_version_id);
    expect(res.body.updated_at >= t.updated_at).toBe(true);
    expect((await api.get(`/templates/${alias}`)).status).toBe(404);
    expect((await api.get(`/templates/${renamed}`)).body).toEqual(res.body);

    // the old alias is free again; a taken one is 409 and changes nothing
    const { body: other } = await api.post('/templates', { name: 'Other', alias, html: '<p>o</p>' });
    const taken = await api.patch(`/templates/${t.id}`, { alias, name: 'Not applied' });
    expect(taken.status).toBe(409);
    expect(taken.body.errors[0].code).toBe('template_alias_taken');
    expect((await api.get(`/templates/${t.id}`)).body).toMatchObject({ name: 'Renamed', alias: renamed });
    expect((await api.get(`/templates/${alias}`)).body.id).toBe(other.id);

    const cleared = await api.patch(`/templates/${t.id}`, { alias: null });
    expect(cleared.body.alias).toBeNull();
    expect((await api.get(`/templates/${renamed}`)).status).toBe(404);
  });

  it('PATCH checks the merged draft, needs a field, and refuses unknown keys and ids', async () => {
    const { body: t } = await api.post('/templates', orderTemplate());
    const dropped = await api.patch(`/templates/${t.id}`, { variables: [] }); // the html still uses PRODUCT and PRICE: now undeclared, which is allowed
    expect(dropped.status).toBe(200);
    expect(dropped.body.variables).toEqual([]);
    expect((await api.patch(`/templates/${t.id}`, {})).status).toBe(422);
    expect((await api.patch(`/templates/${t.id}`, { name: null })).status).toBe(422);
    expect((await api.patch(`/templates/${t.id}`, { status: 'published' })).body.errors[0]).toMatchObject({
      code: 'unrecognized_keys',
      path: 'status',
    });
    expect((await api.patch('/templates/0198c2a4-0000-7000-8000-000000000000', { name: 'x' })).status).toBe(404);
    expect((await api.get('/templates/Not An Alias!')).status).toBe(422);
  });

  it('publishes: the draft becomes the published version; later edits are unpublished until the next publish', async () => {
    const { body: t } = await api.post('/templates', orderTemplate());
    const published = await api.post(`/templates/${t.id}/publish`);
    expect(published.status).toBe(200);
    expect(published.body).toMatchObject({
      id: t.id,
      status: 'published',
      has_unpublished_versions: false,
      current_version_id: t.current_version_id,
    });
    expect(published.body.published_at).toEqual(expect.any(String));

    const edited = await api.patch(`/templates/${t.id}`, { name: 'Edited' });
    expect(edited.body).toMatchObject({
      status: 'published',
      has_unpublished_versions: true,
      published_at: published.body.published_at,
    });

    const again = await api.post(`/templates/${t.id}/publish`);
    expect(again.body).toMatchObject({
      status: 'published',
      has_unpublished_versions: false,
      current_version_id: edited.body.current_version_id,
    });
    expect((await api.post('/templates/0198c2a4-0000-7000-8000-000000000000/publish')).status).toBe(404);
  });

  it('duplicates the draft as "<name> (copy)", without the alias, never published', async () => {
    const alias = uniqueAlias('dup');
    const { body: t } = await api.post('/templates', orderTemplate(alias));
    await api.post(`/templates/${t.id}/publish`);
    const copy = await api.post(`/templates/${alias}/duplicate`);
    expect(copy.status).toBe(201);
    expect(copy.body).toMatchObject({
      name: 'Order confirmation (copy)',
      alias: null,
      status: 'draft',
      published_at: null,
      html: t.html,
      subject: t.subject,
      from: t.from,
      reply_to: t.reply_to,
      variables: t.variables.map((v: Record<string, unknown>) =>
        expect.objectContaining({ key: v.key, type: v.type, fallback_value: v.fallback_value }),
      ),
    });
    expect(copy.body.id).not.toBe(t.id);
    expect((await api.get(`/templates/${alias}`)).body.id).toBe(t.id);
  });

  it('lists summaries newest first and pages with limit, after and before', async () => {
    const other = await createOtherProject();
    const ids: string[] = [];
    for (const name of ['a', 'b', 'c', 'd', 'e'])
      ids.push((await api.post('/templates', { name, html: '<p>x</p>' }, { key: other.key })).body.id);
    const newestFirst = [...ids].reverse();

    const first = await api.get('/templates?limit=2', { key: other.key });
    expect(first.body).toMatchObject({ object: 'list', has_more: true });
    expect(first.body.data.map((t: { id: string }) => t.id)).toEqual(newestFirst.slice(0, 2));
    expect(first.body.data[0]).toEqual({
      object: 'template',
      id: newestFirst[0],
      name: 'e',
      alias: null,
      status: 'draft',
      published_at: null,
      has_unpublished_versions: false,
      created_at: expect.any(String),
      updated_at: expect.any(String),
    });
    const next = await api.get(`/templates?limit=2&after=${newestFirst[1]}`, { key: other.key });
    expect(next.body.data.map((t: { id: string }) => t.id)).toEqual(newestFirst.slice(2, 4));
    const back = await api.get(`/templates?limit=2&before=${newestFirst[4]}`, { key: other.key });
    expect(back.body.data.map((t: { id: string }) => t.id)).toEqual(newestFirst.slice(2, 4));
    const all = await api.get('/templates', { key: other.key });
    expect(all.body).toMatchObject({ has_more: false });
    expect(all.body.data).toHaveLength(5);
  });

  it("never shows, changes or deletes another project's template (404), by id or alias", async () => {
    const other = await createOtherProject();
    const alias = uniqueAlias('mine');
    const { body: mine } = await api.post('/templates', orderTemplate(alias));
    for (const ref of [mine.id, alias]) {
      expect((await api.get(`/templates/${ref}`, { key: other.key })).status).toBe(404);
      expect((await api.patch(`/templates/${ref}`, { name: 'x' }, { key: other.key })).status).toBe(404);
      expect((await api.post(`/templates/${ref}/publish`, undefined, { key: other.key })).status).toBe(404);
      expect((await api.post(`/templates/${ref}/duplicate`, undefined, { key: other.key })).status).toBe(404);
      expect((await api.delete(`/templates/${ref}`, { key: other.key })).status).toBe(404);
    }
    expect((await api.get(`/templates/${mine.id}`)).body).toMatchObject({ name: 'Order confirmation', alias });
  });
});

describe('template fields as headers and DynamoDB take them (issue 16)', () => {
  it('refuses CR, LF, NUL and U+2028/2029 in subject and from, and a From carrying another mailbox, with 422', async () => {
    for (const [change, path] of [
      [{ subject: 'Order {{ORDER}}\r\nBcc: victim@evil.example' }, 'subject'],
      [{ subject: 'Order\u2028{{ORDER}}' }, 'subject'],
      [{ subject: 'Order\u0000' }, 'subject'],
      [{ from: 'Shop\r\nBcc: victim@evil.example <orders@shop.example.com>' }, 'from'],
      [{ from: '"ceo@other-company.example" <orders@shop.example.com>' }, 'from'],
      [{ from: 'ceo@other-company.example, Shop <orders@shop.example.com>' }, 'from'],
      [{ reply_to: 'x@evil.example, y@evil.example <help@shop.example.com>' }, 'reply_to'],
    ] as const) {
      const res = await api.post('/templates', { ...orderTemplate(), ...change });
      expect([JSON.stringify(change), res.status]).toEqual([JSON.stringify(change), 422]);
      expect(res.body.errors[0].path).toBe(path);
    }
    const created = await api.post('/templates', orderTemplate());
    const updated = await api.patch(`/templates/${created.body.id}`, { subject: 'Order\r\nBcc: victim@evil.example' });
    expect(updated.status).toBe(422);
  });

  it('refuses number fallbacks outside what DynamoDB stores (1e300, 1e-200, 2^64) with 422, never 500', async () => {
    for (const value of [1e300, 1e-200, 2 ** 64]) {
      const res = await api.post('/templates', {
        ...orderTemplate(),
        variables: [
          { key: 'PRICE', type: 'number', fallback_value: value },
          { key: 'PRODUCT', type: 'string' },
          { key: 'ORDER', type: 'string' },
        ],
      });
      expect([value, res.status]).toEqual([value, 422]);
      expect(res.body.errors[0].path).toBe('variables.0.fallback_value');
    }
  });
});
