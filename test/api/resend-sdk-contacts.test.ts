/**
 * The official `resend` SDK against the local runtime: contacts, their segments and topics,
 * segments and topics, exactly as the SDK sends them (paths, methods, bodies); and a webhook
 * handler written against the SDK's `WebhookEventPayload`, reading a `contact.created` delivery.
 */
import { Resend, type WebhookEventPayload } from 'resend';
import { TEST_API_KEY } from '../support/constants';
import { baseUrl } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();

const stamp = Date.now().toString(36);
let resend: Resend;

beforeAll(() => {
  resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
});

/** The SDK answers `{data, error}`; a test step must have no error. */
function data<T>(response: { data: T | null; error: unknown }): T {
  expect(response.error).toBeNull();
  return response.data as T;
}

describe('the resend SDK', () => {
  it('creates, reads, renames, lists and deletes segments', async () => {
    const created = data(await resend.segments.create({ name: 'SDK segment' }));
    expect(created).toMatchObject({ object: 'segment', name: 'SDK segment' });
    expect(data(await resend.segments.get(created.id))).toMatchObject({ id: created.id, name: 'SDK segment' });
    expect(data(await resend.segments.update(created.id, { name: 'SDK renamed' }))).toMatchObject({ id: created.id });
    expect(data(await resend.segments.list({ limit: 100 })).data.map((s) => s.id)).toContain(created.id);
    expect(data(await resend.segments.remove(created.id))).toMatchObject({ id: created.id, deleted: true });
  });

  it('creates, reads, updates, lists and deletes topics', async () => {
    const created = data(
      await resend.topics.create({ name: 'SDK topic', description: 'news', defaultSubscription: 'opt_out' }),
    );
    const got = data(await resend.topics.get(created.id));
    expect(got).toMatchObject({
      id: created.id,
      name: 'SDK topic',
      description: 'news',
      default_subscription: 'opt_out',
    });
    expect(data(await resend.topics.update({ id: created.id, name: 'SDK topic 2' }))).toMatchObject({ id: created.id });
    expect(data(await resend.topics.list()).data.map((t) => t.id)).toContain(created.id);
    expect(data(await resend.topics.remove(created.id))).toMatchObject({ id: created.id, deleted: true });
  });

  it('creates contacts with segments and topics, reads them by id and by email, lists and deletes them', async () => {
    const segment = data(await resend.segments.create({ name: 'SDK members' }));
    const topic = data(await resend.topics.create({ name: 'SDK weekly', defaultSubscription: 'opt_in' }));
    const email = `sdk.${stamp}@example.com`;

    const created = data(
      await resend.contacts.create({
        email,
        firstName: 'Sdk',
        lastName: 'User',
        unsubscribed: false,
        properties: { plan: 'pro', seats: 2 },
        segments: [{ id: segment.id }],
        topics: [{ id: topic.id, subscription: 'opt_out' }],
      }),
    );
    expect(created).toMatchObject({ object: 'contact', id: expect.any(String) });

    const byId = data(await resend.contacts.get(created.id));
    expect(byId).toMatchObject({ id: created.id, email, first_name: 'Sdk', last_name: 'User', unsubscribed: false });
    expect(data(await resend.contacts.get({ email })).id).toBe(created.id);
    expect(data(await resend.contacts.get({ id: created.id })).email).toBe(email);

    expect(data(await resend.contacts.list({ limit: 100 })).data.map((c) => c.id)).toContain(created.id);
    expect(data(await resend.contacts.list({ segmentId: segment.id })).data.map((c) => c.id)).toEqual([created.id]);

    expect(data(await resend.contacts.remove({ email }))).toMatchObject({
      object: 'contact',
      contact: created.id,
      deleted: true,
    });
    expect((await resend.contacts.get(created.id)).error).toMatchObject({ name: 'not_found', statusCode: 404 });

    const second = data(await resend.contacts.create({ email: `sdk2.${stamp}@example.com` }));
    expect(data(await resend.contacts.remove(second.id))).toMatchObject({ deleted: true });
  });

  it('gets 422 from contacts.update, which omits the email the contract requires on PATCH', async () => {
    const created = data(await resend.contacts.create({ email: `sdk.update.${stamp}@example.com` }));
    const res = await resend.contacts.update({ id: created.id, firstName: 'Changed' });
    expect(res.data).toBeNull();
    expect(res.error).toMatchObject({ name: 'validation_error', statusCode: 422 });
  });

  it("adds, lists and removes a contact's segments and sets and lists its topics", async () => {
    const segment = data(await resend.segments.create({ name: 'SDK contact segments' }));
    const topic = data(await resend.topics.create({ name: 'SDK contact topics', defaultSubscription: 'opt_in' }));
    const email = `sdk.member.${stamp}@example.com`;
    const contact = data(await resend.contacts.create({ email }));

    expect(data(await resend.contacts.segments.add({ contactId: contact.id, segmentId: segment.id }))).toMatchObject({
      id: segment.id,
    });
    expect(data(await resend.contacts.segments.list({ email })).data.map((s) => s.id)).toEqual([segment.id]);
    expect(data(await resend.contacts.segments.remove({ email, segmentId: segment.id }))).toMatchObject({
      id: segment.id,
      deleted: true,
    });
    expect(data(await resend.contacts.segments.list({ contactId: contact.id })).data).toEqual([]);

    expect(
      data(await resend.contacts.topics.update({ email, topics: [{ id: topic.id, subscription: 'opt_out' }] })),
    ).toMatchObject({ id: contact.id });
    const topics = data(await resend.contacts.topics.list({ id: contact.id }));
    expect(topics.data).toContainEqual({
      id: topic.id,
      name: 'SDK contact topics',
      description: null,
      subscription: 'opt_out',
    });
  });

  it('delivers contact.created that resend.webhooks.verify accepts and a handler typed with WebhookEventPayload reads', async () => {
    const other = await createOtherProject(); // its own webhook: the default project's suites make contacts too
    const sdk = new Resend(other.key, { baseUrl: baseUrl() });
    const rx = await new WebhookReceiver().start();
    try {
      const hook = data(await sdk.webhooks.create({ endpoint: rx.url, events: ['contact.created'] }));
      const segment = data(await sdk.segments.create({ name: 'SDK webhook segment' }));
      const email = `sdk.hook.${stamp}@example.com`;
      const contact = data(await sdk.contacts.create({ email, firstName: 'Hook', segments: [{ id: segment.id }] }));

      // the handler a Resend user writes: the SDK's types decide what it may read
      const handle = (event: WebhookEventPayload) =>
        event.type === 'contact.created'
          ? {
              id: event.data.id,
              email: event.data.email,
              first_name: event.data.first_name,
              audience_id: event.data.audience_id,
              segment_ids: event.data.segment_ids,
              unsubscribed: event.data.unsubscribed,
            }
          : undefined;
      const [receipt] = await waitFor(
        async () => rx.receipts,
        (r) => r.length > 0,
        10_000,
      );
      const header = (name: string) => String(receipt.headers[`svix-${name}`]);
      const event = sdk.webhooks.verify({
        payload: receipt.body,
        headers: { id: header('id'), timestamp: header('timestamp'), signature: header('signature') },
        webhookSecret: hook.signing_secret,
      });
      expect(handle(event)).toEqual({
        id: contact.id,
        email,
        first_name: 'Hook',
        audience_id: segment.id,
        segment_ids: [segment.id],
        unsubscribed: false,
      });
    } finally {
      await rx.stop();
    }
  });
});
