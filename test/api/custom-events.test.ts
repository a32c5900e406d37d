/**
 * Custom events through the official SDK (`events.create/get/update/remove/send`): definitions by
 * id and by name, their names' rules, schemas that coerce or refuse a sent payload (422 naming the
 * key, nothing recorded), sends by contact id or by address (which creates the contact), and the
 * platform event `custom_event.sent` each accepted send records in GET /events. (`events.list`
 * reads the contract's event log: test/api/resend-sdk-observability.test.ts.) A webhook subscribed to
 * `custom_event.sent` gets it; a test-mode key's send stays in its sandbox.
 */
import { Resend } from 'resend';
import { TEST_API_KEY } from '../support/constants';
import { api, baseUrl } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();

let resend: Resend;
beforeAll(() => {
  resend = new Resend(TEST_API_KEY, { baseUrl: baseUrl() });
});

const unique = (label: string) => `${label}.${Date.now().toString(36)}${Math.random().toString(36).slice(2, 6)}`;
/** What POST /events/send answers: the SDK's `{object, event}` with `id` and `contact_id` beside. */
const sentOf = (answer: { data: unknown }) =>
  answer.data as { object: string; event: string; id: string; contact_id: string };
const errorsOf = (error: unknown) => (error as { errors: { code: string; path: string }[] }).errors;

/** The `custom_event.sent` events of the log whose payload carries `ref`. */
async function sentWithRef(ref: string): Promise<Record<string, any>[]> {
  const log = await api.get('/events');
  expect(log.status).toBe(200);
  return log.body.data.filter(
    (e: Record<string, any>) => e.type === 'custom_event.sent' && e.data.object.payload?.ref === ref,
  );
}

describe('event definitions', () => {
  it('are created, read by id and by name, changed, and deleted (the name is free again)', async () => {
    const name = unique('user.signed_up');
    const created = await resend.events.create({ name, schema: { plan: 'string' } });
    expect(created.error).toBeNull();
    expect(created.data).toEqual({ object: 'event', id: expect.any(String) });
    const id = created.data!.id;

    const byId = await resend.events.get(id);
    expect(byId.data).toEqual({
      object: 'event',
      id,
      name,
      schema: { plan: 'string' },
      created_at: expect.any(String),
      updated_at: null,
    });
    expect((await resend.events.get(name)).data).toEqual(byId.data);

    expect((await resend.events.update(name, { schema: { plan: 'string', seats: 'number' } })).data).toEqual({
      object: 'event',
      id,
    });
    const changed = await resend.events.get(id);
    expect(changed.data).toMatchObject({ schema: { plan: 'string', seats: 'number' }, updated_at: expect.any(String) });
    expect((await resend.events.update(id, { schema: null })).error).toBeNull();
    expect((await resend.events.get(name)).data?.schema).toBeNull();

    expect((await resend.events.remove(name)).data).toEqual({ object: 'event', id, deleted: true });
    expect((await resend.events.get(id)).error).toMatchObject({ statusCode: 404, name: 'not_found' });
    expect((await resend.events.get(name)).error).toMatchObject({ statusCode: 404 });
    expect((await resend.events.remove(id)).error).toMatchObject({ statusCode: 404 });
    const again = await resend.events.create({ name });
    expect(again.error).toBeNull();
    expect(again.data!.id).not.toBe(id);
  });

  it('keep names unique, and refuse reserved, UUID-shaped and malformed names and schemas', async () => {
    const name = unique('order.paid');
    expect((await resend.events.create({ name })).error).toBeNull();
    expect((await resend.events.create({ name })).error).toMatchObject({ statusCode: 409 });
    expect(await api.post('/events', { name })).toMatchObject({
      status: 409,
      body: { errors: [{ code: 'event_exists', path: 'name' }] },
    });

    for (const bad of [
      'resend:email.delivered',
      '01a20280-902e-70b0-b281-d9d957510688',
      'send',
      'a/b',
      ' padded',
      '',
    ]) {
      const answer = await api.post('/events', { name: bad });
      expect(answer.status).toBe(422);
      expect(answer.body.errors).toEqual([expect.objectContaining({ path: 'name' })]);
    }
    expect(await api.post('/events', { name: unique('bad.schema'), schema: { plan: 'text' } })).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'schema.plan' }] },
    });
    expect(await api.post('/events', { name: unique('bad.schema'), schema: { '1st': 'string' } })).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'schema.1st' }] },
    });
    expect(await api.patch(`/events/${encodeURIComponent(name)}`, {})).toMatchObject({
      status: 422,
      body: { errors: [{ path: 'schema' }] },
    });
  });
});

describe('sending an event', () => {
  it('by address creates the contact, and records custom_event.sent with the contact and the payload', async () => {
    const email = `${unique('new')}@example.com`;
    const ref = unique('ref');
    const sent = await resend.events.send({ event: 'trial.started', email, payload: { ref, plan: 'pro' } });
    expect(sent.error).toBeNull();
    expect(sent.data).toEqual({
      object: 'event',
      event: 'trial.started',
      id: expect.any(String),
      contact_id: expect.any(String),
    });
    const contact = await resend.contacts.get({ email });
    expect(contact.data).toMatchObject({ id: sentOf(sent).contact_id, email });

    const [recorded] = await sentWithRef(ref);
    expect(recorded).toMatchObject({
      type: 'custom_event.sent',
      livemode: true,
      data: {
        object: {
          object: 'custom_event',
          id: sentOf(sent).id,
          event: 'trial.started',
          contact_id: contact.data!.id,
          email,
          payload: { ref, plan: 'pro' },
        },
      },
    });

    // a second send for the address finds the contact it made
    const again = await resend.events.send({ event: 'trial.started', email: email.toUpperCase() });
    expect(sentOf(again).contact_id).toBe(contact.data!.id);
    // and by contact id
    const byId = await resend.events.send({ event: 'trial.extended', contactId: contact.data!.id });
    expect(byId.data).toMatchObject({ event: 'trial.extended', contact_id: contact.data!.id });
  });

  it("coerces declared values to the schema's types where nothing is lost, and leaves undeclared keys as they are", async () => {
    const name = unique('invoice.paid');
    await resend.events.create({ name, schema: { amount: 'number', paid: 'boolean', due: 'date', plan: 'string' } });
    const ref = unique('ref');
    const sent = await resend.events.send({
      event: name,
      email: `${unique('payer')}@example.com`,
      payload: { ref, amount: '42.5', paid: 'true', due: '2026-12-01', plan: 3, note: null, extra: { any: 'thing' } },
    });
    expect(sent.error).toBeNull();
    const [recorded] = await sentWithRef(ref);
    expect(recorded.data.object.payload).toEqual({
      ref,
      amount: 42.5,
      paid: true,
      due: '2026-12-01T00:00:00.000Z',
      plan: '3',
      note: null,
      extra: { any: 'thing' },
    });
  });

  it('refuses a payload its schema does not allow, naming each key, and records nothing', async () => {
    const name = unique('seats.changed');
    await resend.events.create({ name, schema: { seats: 'number', at: 'date', active: 'boolean' } });
    const ref = unique('ref');
    const refused = await resend.events.send({
      event: name,
      email: `${unique('refused')}@example.com`,
      payload: { ref, seats: 'many', at: 'yesterday', active: 'yes' },
    });
    expect(refused.error).toMatchObject({ statusCode: 422, name: 'validation_error' });
    expect(
      errorsOf(refused.error)
        .map((e) => `${e.code} ${e.path}`)
        .sort(),
    ).toEqual([
      'invalid_payload_value payload.active',
      'invalid_payload_value payload.at',
      'invalid_payload_value payload.seats',
    ]);
    expect(await sentWithRef(ref)).toEqual([]);

    // after the schema is dropped, the same payload goes
    await resend.events.update(name, { schema: null });
    const sent = await resend.events.send({
      event: name,
      email: `${unique('accepted')}@example.com`,
      payload: { ref, seats: 'many' },
    });
    expect(sent.error).toBeNull();
    expect(await sentWithRef(ref)).toHaveLength(1);
  });

  it('needs exactly one of contact_id and email, a contact that exists, a name that is not a system event, and a payload under 16 KB', async () => {
    const ref = unique('ref');
    const cases: [Record<string, unknown>, number, string][] = [
      [{ event: 'x.y', payload: { ref } }, 422, 'contact_id'],
      [
        { event: 'x.y', contact_id: '01a20280-902e-70b0-b281-d9d957510688', email: 'a@example.com', payload: { ref } },
        422,
        'contact_id',
      ],
      [{ event: 'x.y', contact_id: '01a20280-902e-70b0-b281-d9d957510688', payload: { ref } }, 404, 'contact_id'],
      [{ event: 'x.y', email: 'not an address', payload: { ref } }, 422, 'email'],
      [{ event: 'resend:email.delivered', email: 'a@example.com', payload: { ref } }, 422, 'event'],
      [{ event: 'x.y', email: 'a@example.com', payload: { ref, big: 'x'.repeat(17 * 1024) } }, 413, 'payload'],
      [{ event: 'x.y', email: 'a@example.com', payload: [ref] }, 422, 'payload'],
    ];
    for (const [body, status, path] of cases) {
      const answer = await api.post('/events/send', body);
      expect({ body, status: answer.status, paths: answer.body.errors?.map((e: { path: string }) => e.path) }).toEqual({
        body,
        status,
        paths: [path],
      });
    }
    expect(await sentWithRef(ref)).toEqual([]);
  });

  it('reaches a webhook subscribed to custom_event.sent', async () => {
    const other = await createOtherProject(); // a webhook of its own: the default project's suites send events too
    const rx = await new WebhookReceiver().start();
    try {
      const hook = await api.post('/webhooks', { endpoint: rx.url, events: ['custom_event.sent'] }, { key: other.key });
      expect(hook.status).toBe(201);
      const sdk = new Resend(other.key, { baseUrl: baseUrl() });
      const email = `${unique('hooked')}@example.com`;
      const sent = await sdk.events.send({ event: 'cart.abandoned', email, payload: { items: 3 } });
      expect(sent.error).toBeNull();
      const [receipt] = await waitFor(
        async () => rx.receipts,
        (r) => r.length > 0,
        15_000,
      );
      expect(receipt.json).toMatchObject({
        type: 'custom_event.sent',
        data: {
          object: {
            object: 'custom_event',
            id: sentOf(sent).id,
            event: 'cart.abandoned',
            email,
            payload: { items: 3 },
          },
        },
      });
    } finally {
      await rx.stop();
    }
  });

  it("with a test-mode key, stays in the project's sandbox", async () => {
    const key = await api.post('/api-keys', { name: 'events sandbox', mode: 'test' });
    expect(key.status).toBe(201);
    const sandbox = new Resend(key.body.token, { baseUrl: baseUrl() });
    const email = `${unique('sandboxed')}@example.com`;
    const sent = await sandbox.events.send({ event: 'trial.started', email });
    expect(sent.error).toBeNull();
    expect((await sandbox.contacts.get({ email })).data).toMatchObject({ id: sentOf(sent).contact_id });
    expect((await resend.contacts.get({ email })).error).toMatchObject({ statusCode: 404 });
    const log = await api.get('/events', { key: key.body.token });
    expect(log.body.data.find((e: Record<string, any>) => e.data.object.id === sentOf(sent).id)).toMatchObject({
      type: 'custom_event.sent',
      livemode: false,
    });
  });
});
