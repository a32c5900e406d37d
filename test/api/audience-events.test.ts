/**
 * Resend's audience event types over real HTTP against the local runtime: `contact.*`,
 * `contact.topics.updated`, `topic.*` and `suppression.*` are written in the transaction of their
 * change (GET /events shows them), carry the resource as the API shows it in `data.object` and
 * Resend's flat fields beside it (the `resend` SDK's ContactEventData, ContactTopicsEventData,
 * TopicEventData, SuppressionEventData), and reach the webhooks subscribed to them, signed.
 * Each test uses a project of its own, so the suites running beside it add no events to its list;
 * the webhook test runs on a runtime of its own (test/support/own-runtime.ts), whose pipeline it
 * lets settle (`drain`) before checking what was not delivered.
 */
import { Webhook as StandardWebhook } from 'standardwebhooks';
import { createApiKey } from '../../shared/access/api-keys';
import { MAX_SEGMENTS_PER_CONTACT, MAX_TOPICS_PER_REQUEST } from '../../shared/audience/model';
import { EVENT_TYPES } from '../../shared/events/model';
import { withdrawComplaint } from '../../shared/suppressions/suppressions';
import { verifiedDomain } from '../support/domains';
import { api } from '../support/http';
import { useOwnRuntime } from '../support/own-runtime';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();

const AUDIENCE_TYPES = [
  'contact.created',
  'contact.updated',
  'contact.deleted',
  'contact.topics.updated',
  'topic.created',
  'topic.updated',
  'topic.deleted',
  'suppression.added',
  'suppression.removed',
];

/** The project's events about the resource `id`, oldest first (GET /events answers newest first). */
async function eventsAbout(key: string, id: string): Promise<any[]> {
  const res = await api.get('/events', { key });
  expect(res.status).toBe(200);
  return res.body.data.filter((e: any) => e.data.object.id === id).reverse();
}

const typesOf = (events: any[]) => events.map((e) => e.type);

/** Resend's ContactEventData of a contact as the API shows it. */
const contactFields = (contact: any) => ({
  id: contact.id,
  audience_id: contact.segment_ids[0] ?? null,
  segment_ids: contact.segment_ids,
  created_at: contact.created_at,
  updated_at: contact.updated_at,
  email: contact.email,
  first_name: contact.first_name,
  last_name: contact.last_name,
  unsubscribed: contact.unsubscribed,
});

const receivers: WebhookReceiver[] = [];
afterAll(async () => {
  await Promise.all(receivers.map((r) => r.stop()));
});

describe('contact events', () => {
  it('emits contact.created, contact.updated (PATCH and segment changes), contact.topics.updated and contact.deleted, each with the contact and Resend fields', async () => {
    const { key } = await createOtherProject();
    const segment = (await api.post('/segments', { name: 'members' }, { key })).body;
    const other = (await api.post('/segments', { name: 'vip' }, { key })).body;
    const weekly = (await api.post('/topics', { name: 'weekly', default_subscription: 'opt_in' }, { key })).body;
    const monthly = (await api.post('/topics', { name: 'monthly', default_subscription: 'opt_out' }, { key })).body;
    const email = `ada.${Date.now().toString(36)}@example.com`;
    const created = await api.post(
      '/contacts',
      {
        email,
        first_name: 'Ada',
        properties: { plan: 'pro' },
        segments: [{ id: segment.id }],
        topics: [{ id: weekly.id, subscription: 'opt_out' }],
      },
      { key },
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    const asCreated = (await api.get(`/contacts/${id}?properties_format=plain`, { key })).body;

    const [createdEvent] = await eventsAbout(key, id);
    expect(createdEvent).toMatchObject({ object: 'event', type: 'contact.created', livemode: true });
    expect(createdEvent.data).toEqual({ object: asCreated, ...contactFields(asCreated) });
    expect(createdEvent.data.audience_id).toBe(segment.id); // audiences are segments here: the first one

    // PATCH: contact.updated with the contact after the change
    const patched = await api.patch(`/contacts/${id}`, { email, last_name: 'Lovelace', unsubscribed: true }, { key });
    expect(patched.status).toBe(200);
    const afterPatch = (await api.get(`/contacts/${id}?properties_format=plain`, { key })).body;
    expect(patched.body).toEqual(afterPatch);
    let events = await eventsAbout(key, id);
    expect(typesOf(events)).toEqual(['contact.created', 'contact.updated']);
    expect(events[1].data).toEqual({ object: afterPatch, ...contactFields(afterPatch) });
    expect(events[1].data).toMatchObject({ last_name: 'Lovelace', unsubscribed: true });

    // PATCH with topics: contact.updated, and contact.topics.updated naming the subscriptions it set
    await api.patch(`/contacts/${id}`, { email, topics: [{ id: monthly.id, subscription: 'opt_in' }] }, { key });
    const afterTopics = (await api.get(`/contacts/${id}?properties_format=plain`, { key })).body;
    events = await eventsAbout(key, id);
    expect(typesOf(events).slice(2).sort()).toEqual(['contact.topics.updated', 'contact.updated']);
    const viaPatch = events.slice(2).find((e) => e.type === 'contact.topics.updated');
    expect(viaPatch.data).toEqual({
      object: { ...afterTopics, updated_topics: [{ id: monthly.id, subscription: 'opt_in' }] },
      email,
      topics: [{ id: monthly.id, subscription: 'opt_in' }],
    });

    // PATCH /contacts/{id}/topics: contact.topics.updated only (Resend's route for this change)
    const set = [{ id: weekly.id, subscription: 'opt_in' }];
    expect((await api.patch(`/contacts/${id}/topics`, set, { key })).status).toBe(200);
    const afterSet = (await api.get(`/contacts/${id}?properties_format=plain`, { key })).body;
    events = await eventsAbout(key, id);
    expect(typesOf(events).slice(4)).toEqual(['contact.topics.updated']);
    expect(events[4].data).toEqual({ object: { ...afterSet, updated_topics: set }, email, topics: set });
    expect(afterSet.topics).toEqual(expect.arrayContaining([...set, { id: monthly.id, subscription: 'opt_in' }]));

    // into a segment and out of it: contact.updated with its segment_ids; adding it again changes nothing and emits nothing
    expect((await api.post(`/contacts/${id}/segments/${other.id}`, undefined, { key })).status).toBe(200);
    const inBoth = (await api.get(`/contacts/${id}?properties_format=plain`, { key })).body;
    expect((await api.post(`/contacts/${id}/segments/${other.id}`, undefined, { key })).status).toBe(200);
    expect((await api.delete(`/contacts/${id}/segments/${segment.id}`, { key })).status).toBe(200);
    const onlyOther = (await api.get(`/contacts/${id}?properties_format=plain`, { key })).body;
    events = await eventsAbout(key, id);
    expect(typesOf(events).slice(5)).toEqual(['contact.updated', 'contact.updated']);
    expect(events[5].data).toEqual({ object: inBoth, ...contactFields(inBoth) });
    expect(events[5].data.segment_ids).toEqual([segment.id, other.id]);
    expect(events[6].data).toEqual({ object: onlyOther, ...contactFields(onlyOther) });
    expect(events[6].data.audience_id).toBe(other.id);

    // DELETE: contact.deleted with the contact as it was
    expect((await api.delete(`/contacts/${email}`, { key })).status).toBe(200);
    expect((await api.delete(`/contacts/${id}`, { key })).status).toBe(404);
    events = await eventsAbout(key, id);
    expect(typesOf(events).slice(7)).toEqual(['contact.deleted']);
    expect(events[7].data).toEqual({ object: onlyOther, ...contactFields(onlyOther) });
  });

  it('fits the largest PATCH (address moved, 25 segments swapped for 25 others, 20 topics) and its two events in one transaction of 100 actions', async () => {
    const { key } = await createOtherProject();
    const make = (path: string, n: number, body: (i: number) => object) =>
      Promise.all(
        Array.from({ length: n }, (_, i) => api.post(path, body(i), { key }).then((r) => r.body.id as string)),
      );
    const [before, after, topics] = await Promise.all([
      make('/segments', MAX_SEGMENTS_PER_CONTACT, (i) => ({ name: `before ${i}` })),
      make('/segments', MAX_SEGMENTS_PER_CONTACT, (i) => ({ name: `after ${i}` })),
      make('/topics', MAX_TOPICS_PER_REQUEST, (i) => ({ name: `topic ${i}`, default_subscription: 'opt_in' })),
    ]);
    const stamp = Date.now().toString(36);
    const id = (await api.post('/contacts', { email: `full.${stamp}@example.com`, segments: before }, { key })).body.id;
    const set = topics.map((topicId) => ({ id: topicId, subscription: 'opt_out' }));
    const patched = await api.patch(
      `/contacts/${id}`,
      { email: `moved.${stamp}@example.com`, segments: after, topics: set },
      { key },
    );
    expect(patched.status).toBe(200);
    const events = await eventsAbout(key, id);
    expect(typesOf(events).slice(1).sort()).toEqual(['contact.topics.updated', 'contact.updated']);
    expect(events.find((e) => e.type === 'contact.updated').data).toMatchObject({
      email: `moved.${stamp}@example.com`,
      segment_ids: after,
      audience_id: after[0],
    });
    expect(events.find((e) => e.type === 'contact.topics.updated').data.topics).toEqual(set);
  });

  it('gives audience_id null to a contact in no segment, and carries livemode false for a test key', async () => {
    const { projectId } = await createOtherProject();
    const { token: testKey } = await createApiKey(
      { projectId, livemode: false, permission: 'full_access' },
      { name: 'sandbox', mode: 'test' },
    );
    const created = await api.post(
      '/contacts',
      { email: `solo.${Date.now().toString(36)}@example.com` },
      { key: testKey },
    );
    expect(created.status).toBe(201);
    const [event] = await eventsAbout(testKey, created.body.id);
    expect(event).toMatchObject({
      type: 'contact.created',
      livemode: false,
      data: { audience_id: null, segment_ids: [], first_name: null, last_name: null, unsubscribed: false },
    });
  });
});

describe('topic events', () => {
  it('emits topic.created, topic.updated and topic.deleted (deleted: true, the topic as it was)', async () => {
    const { key } = await createOtherProject();
    const created = await api.post(
      '/topics',
      { name: 'Product news', description: 'launches', default_subscription: 'opt_out' },
      { key },
    );
    expect(created.status).toBe(201);
    const id = created.body.id;
    const updated = await api.patch(`/topics/${id}`, { name: 'Product updates', description: null }, { key });
    expect(updated.status).toBe(200);
    expect((await api.get(`/topics/${id}`, { key })).body).toEqual(updated.body);
    expect((await api.delete(`/topics/${id}`, { key })).status).toBe(200);
    expect((await api.delete(`/topics/${id}`, { key })).status).toBe(404);
    expect((await api.patch(`/topics/${id}`, { name: 'gone' }, { key })).status).toBe(404);

    const topicFields = (topic: any, deleted: boolean) => ({
      id: topic.id,
      name: topic.name,
      description: topic.description,
      default_subscription: topic.default_subscription,
      deleted,
      created_at: topic.created_at,
      updated_at: topic.updated_at,
    });
    const events = await eventsAbout(key, id);
    expect(typesOf(events)).toEqual(['topic.created', 'topic.updated', 'topic.deleted']);
    expect(events[0].data).toEqual({ object: created.body, ...topicFields(created.body, false) });
    expect(events[1].data).toEqual({ object: updated.body, ...topicFields(updated.body, false) });
    expect(events[1].data).toMatchObject({
      name: 'Product updates',
      description: null,
      default_subscription: 'opt_out',
    });
    expect(events[2].data).toEqual({ object: updated.body, ...topicFields(updated.body, true) });
  });
});

describe('suppression events', () => {
  it('emits suppression.added for a new manual entry only (not for an address already suppressed) and suppression.removed on delete', async () => {
    const { key } = await createOtherProject();
    const email = `gone.${Date.now().toString(36)}@example.com`;
    const added = await api.post('/suppressions', { email, reason: 'asked us to stop' }, { key });
    expect(added.status).toBe(201);
    expect((await api.post('/suppressions', { email }, { key })).status).toBe(200);
    expect((await api.delete(`/suppressions/${encodeURIComponent(email)}`, { key })).status).toBe(200);
    expect((await api.delete(`/suppressions/${added.body.id}`, { key })).status).toBe(404);

    const fields = { id: added.body.id, email, origin: 'manual', source_id: null, created_at: added.body.created_at };
    const events = await eventsAbout(key, added.body.id);
    expect(typesOf(events)).toEqual(['suppression.added', 'suppression.removed']);
    expect(events[0].data).toEqual({ object: added.body, ...fields });
    expect(events[1].data).toEqual({ object: added.body, ...fields });
  });

  it('emits suppression.added from SES feedback (origin bounce or complaint, source_id the email) and suppression.removed when not-spam withdraws a complaint', async () => {
    const { key, projectId } = await createOtherProject(); // the simulator addresses get suppressed: not in the project other suites send from
    const domain = await verifiedDomain(key, 'feedback');
    const stamp = Date.now().toString(36);
    const send = async (to: string) => {
      const sent = await api.post('/emails', { from: `n@${domain}`, to, subject: `to ${to}`, text: 'x' }, { key });
      expect(sent.status).toBe(200);
      return sent.body.id as string;
    };
    const entryOf = (address: string) =>
      waitFor(
        () => api.get(`/suppressions/${encodeURIComponent(address)}`, { key }),
        (r) => r.status === 200,
      ).then((r) => r.body);
    const addedEvent = (entryId: string) =>
      waitFor(
        () => eventsAbout(key, entryId),
        (events) => events.length > 0,
      ).then((events) => events[0]);

    const bounced = `bounce+events-${stamp}@simulator.amazonses.com`;
    const complained = `complaint+events-${stamp}@simulator.amazonses.com`;
    const [bounceEmail, complaintEmail] = [await send(bounced), await send(complained)];
    const [bounceEntry, complaintEntry] = await Promise.all([entryOf(bounced), entryOf(complained)]);
    const bounceEvent = await addedEvent(bounceEntry.id);
    expect(bounceEvent).toMatchObject({ type: 'suppression.added', livemode: true });
    expect(bounceEvent.data).toEqual({
      object: bounceEntry,
      id: bounceEntry.id,
      email: bounced,
      origin: 'bounce',
      source_id: bounceEmail,
      created_at: bounceEntry.created_at,
    });
    const complaintFields = {
      id: complaintEntry.id,
      email: complained,
      origin: 'complaint',
      source_id: complaintEmail,
      created_at: complaintEntry.created_at,
    };
    expect((await addedEvent(complaintEntry.id)).data).toEqual({ object: complaintEntry, ...complaintFields });

    // the suppression writer's answer to a `not-spam` complaint (SES's simulator sends none)
    expect(await withdrawComplaint(projectId, complained)).toBe(true);
    const events = await eventsAbout(key, complaintEntry.id);
    expect(typesOf(events)).toEqual(['suppression.added', 'suppression.removed']);
    expect(events[1]).toMatchObject({ livemode: true, data: { object: complaintEntry, ...complaintFields } });
  });
});

describe('webhooks and the audience event types', () => {
  it('accepts every new type on POST /webhooks and refuses an unknown one', async () => {
    const { key } = await createOtherProject();
    expect(EVENT_TYPES).toEqual(expect.arrayContaining(AUDIENCE_TYPES));
    const created = await api.post(
      '/webhooks',
      { endpoint: 'https://hooks.example.com/audience', events: AUDIENCE_TYPES },
      { key },
    );
    expect(created.status).toBe(201);
    expect(created.body.events).toEqual(AUDIENCE_TYPES);
    const all = await api.post(
      '/webhooks',
      { endpoint: 'https://hooks.example.com/all', events: [...EVENT_TYPES] },
      { key },
    );
    expect(all.status).toBe(201);
    const bad = await api.post(
      '/webhooks',
      { endpoint: 'https://hooks.example.com/bad', events: ['contact.created', 'contact.exploded'] },
      { key },
    );
    expect(bad).toMatchObject({
      status: 422,
      body: { name: 'validation_error', errors: [expect.objectContaining({ path: 'events.1' })] },
    });
  });

  describe('on a runtime of its own', () => {
    // its own, so that `drain` waits for this test's events alone: then what was not delivered never will be
    const runtime = useOwnRuntime();

    it('delivers contact.created and suppression.added to a webhook subscribed to them, signed, and nothing it did not subscribe to', async () => {
      const { call } = runtime;
      const rx = await new WebhookReceiver().start();
      receivers.push(rx);
      const hook = await call('POST', '/webhooks', {
        endpoint: rx.url,
        events: ['contact.created', 'suppression.added'],
      });
      expect(hook.status).toBe(201);
      const email = `hooked.${Date.now().toString(36)}@example.com`;
      const contact = await call('POST', '/contacts', { email, first_name: 'Grace' });
      expect(contact.status).toBe(201);
      const suppression = await call('POST', '/suppressions', { email });
      expect(suppression.status).toBe(201);
      expect((await call('POST', '/topics', { name: 'not subscribed', default_subscription: 'opt_in' })).status).toBe(
        201,
      );

      // every event of the three changes has gone through the pipeline: the two subscribed types came, the topic.created never will
      await runtime.drain();
      expect(rx.receipts.map((r) => r.json.type).sort()).toEqual(['contact.created', 'suppression.added']);
      const verify = (body: string, headers: object) =>
        new StandardWebhook(hook.body.signing_secret).verify(body, headers as Record<string, string>) as any;
      const payloads = rx.receipts.map((r) => verify(r.body, r.headers));
      const contactEvent = payloads.find((p) => p.type === 'contact.created');
      expect(contactEvent.data).toMatchObject({
        object: { id: contact.body.id, email },
        id: contact.body.id,
        email,
        first_name: 'Grace',
        audience_id: null,
        segment_ids: [],
      });
      const suppressionEvent = payloads.find((p) => p.type === 'suppression.added');
      expect(suppressionEvent.data).toMatchObject({
        object: { id: suppression.body.id },
        id: suppression.body.id,
        email,
        origin: 'manual',
        source_id: null,
      });
    });
  });
});
