/**
 * The official `resend` SDK against the local runtime: every template call it has, and sending
 * an email from a template, with no error and the shapes its types promise.
 */
import { Resend } from 'resend';
import { TEST_API_KEY } from '../support/constants';
import { api, baseUrl } from '../support/http';
import { useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';

useRuntimeTable();
const resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
const suffix = `${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;

/** The SDK answers `{data, error}`; a test fails on any error. */
function ok<T>(result: { data: T | null; error: unknown }): T {
  expect(result.error).toBeNull();
  return result.data as T;
}

let domain: string;
beforeAll(async () => {
  domain = `sdk-templates-${suffix}.example.com`;
  const created = await api.post('/domains', { name: domain });
  expect(created.status).toBe(201);
  await waitFor(
    () => api.post(`/domains/${created.body.id}/verify`),
    (r) => r.body.status === 'verified',
  );
});

describe('resend.templates', () => {
  it('creates, gets, lists, updates, publishes, duplicates and removes templates', async () => {
    const alias = `sdk-order-${suffix}`;
    const created = ok(
      await resend.templates.create({
        name: 'SDK order',
        alias,
        from: `Shop <shop@${domain}>`,
        subject: 'Order of {{{PRODUCT}}}',
        replyTo: 'help@example.com',
        html: '<p>{{{PRODUCT}}} costs {{{PRICE}}}</p>',
        text: '{{{PRODUCT}}}: {{{PRICE}}}',
        variables: [
          { key: 'PRODUCT', type: 'string', fallbackValue: 'item' },
          { key: 'PRICE', type: 'number', fallbackValue: 25 },
        ],
      }),
    );
    expect(created).toMatchObject({ object: 'template', id: expect.any(String) });

    const got = ok(await resend.templates.get(created.id));
    expect(got).toMatchObject({
      object: 'template',
      name: 'SDK order',
      alias,
      status: 'draft',
      reply_to: ['help@example.com'],
      published_at: null,
      has_unpublished_versions: false,
      variables: [
        expect.objectContaining({ key: 'PRODUCT', type: 'string', fallback_value: 'item' }),
        expect.objectContaining({ key: 'PRICE', fallback_value: 25 }),
      ],
    });
    expect(ok(await resend.templates.get(alias)).id).toBe(created.id);

    const listed = ok(await resend.templates.list({ limit: 100 }));
    expect(listed.object).toBe('list');
    expect(listed.data.map((t) => t.id)).toContain(created.id);

    expect(
      ok(await resend.templates.update(created.id, { name: 'SDK order v2', subject: 'Your {{{PRODUCT}}}' })),
    ).toMatchObject({ object: 'template', id: created.id });
    expect(ok(await resend.templates.publish(alias))).toMatchObject({ object: 'template', id: created.id });
    expect(ok(await resend.templates.get(created.id))).toMatchObject({
      name: 'SDK order v2',
      status: 'published',
      published_at: expect.any(String),
    });

    const copy = ok(await resend.templates.duplicate(created.id));
    expect(copy).toMatchObject({ object: 'template', id: expect.any(String) });
    expect(ok(await resend.templates.get(copy.id))).toMatchObject({
      name: 'SDK order v2 (copy)',
      alias: null,
      status: 'draft',
    });

    expect(ok(await resend.templates.remove(copy.id))).toEqual(
      expect.objectContaining({ object: 'template', id: copy.id, deleted: true }),
    );
    expect(ok(await resend.templates.remove(alias))).toEqual(
      expect.objectContaining({ object: 'template', id: created.id, deleted: true }),
    );
    const gone = await resend.templates.get(created.id);
    expect(gone.error).toMatchObject({ name: 'not_found', statusCode: 404 });
  });

  it('creates a template from content alone, its variables undeclared, as Resend takes it', async () => {
    const created = ok(await resend.templates.create({ name: 'Content only', html: '<p>{{{X}}}</p>' }));
    expect(ok(await resend.templates.get(created.id))).toMatchObject({ html: '<p>{{{X}}}</p>', variables: [] });
  });

  it('chains create().publish() and duplicate().publish()', async () => {
    const published = ok(await resend.templates.create({ name: 'Chained', html: '<p>Hi</p>' }).publish());
    expect(ok(await resend.templates.get(published.id)).status).toBe('published');
    const copy = ok(await resend.templates.duplicate(published.id).publish());
    expect(copy.id).not.toBe(published.id);
    expect(ok(await resend.templates.get(copy.id))).toMatchObject({ name: 'Chained (copy)', status: 'published' });
  });

  it('sends an email with template {id, variables}', async () => {
    const template = ok(
      await resend.templates
        .create({
          name: 'SDK receipt',
          from: `Shop <shop@${domain}>`,
          subject: 'Receipt for {{{PRODUCT}}}',
          html: '<p>{{PRODUCT}} for {{{PRICE}}}</p>',
          variables: [
            { key: 'PRODUCT', type: 'string' },
            { key: 'PRICE', type: 'number', fallbackValue: 25 },
          ],
        })
        .publish(),
    );
    const sent = ok(
      await resend.emails.send({
        to: 'success@simulator.amazonses.com',
        template: { id: template.id, variables: { PRODUCT: 'Tea & cake' } },
      }),
    );
    expect(sent.id).toEqual(expect.any(String));
    const email = await waitFor(
      () => resend.emails.get(sent.id).then(ok),
      (e) => e.last_event === 'sent',
    );
    expect(email).toMatchObject({
      subject: 'Receipt for Tea & cake',
      html: '<p>Tea &amp; cake for 25</p>',
      from: `Shop <shop@${domain}>`,
    });
  });
});
