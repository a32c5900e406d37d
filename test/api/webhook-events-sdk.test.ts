/**
 * Resend's webhook event log through the official SDK (`resend.webhooks.events.list`, `.get`,
 * `.replay`, `.attempts.list`) against the local runtime. A webhook of a project of its own gets
 * `contact.created` events: the first while its endpoint answers 500 (the runtime's retry
 * schedule is 1,1,1: four attempts a second apart, then `failed`), two more once it answers 200.
 * The log shows them in Resend's shapes, named by the event id the endpoint got in `webhook-id`;
 * the attempts carry the status codes and bodies the endpoint answered; a replay delivers again.
 * The contract's routes over the same delivery records stay as they were.
 */
import { Resend } from 'resend';
import { api, baseUrl } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';
import * as keys from '../../shared/platform/db/keys';
import { put, putItem, update, updateItem } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { deliveryId as deliveryIdOf } from '../../shared/webhooks/deliveries';

useRuntimeTable();

const ID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const TIME = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;
const MISSING = '01890a5d-ac96-774b-bcce-b302099a8057';
/** generous: the machine has two cores and other suites run beside this one */
const SLOW = 40_000;

function data<T>(result: { data: T | null; error: unknown }): T {
  expect(result.error).toBeNull();
  return result.data as T;
}

let rx: WebhookReceiver;
beforeAll(async () => {
  rx = await new WebhookReceiver().start();
});
afterAll(() => rx.stop());

/** What the endpoint got for one event: every attempt carries the event id in `webhook-id`. */
const receiptsOf = (eventId: string) => rx.receipts.filter((r) => r.headers['webhook-id'] === eventId);

describe('webhooks.events through the official SDK', () => {
  it("lists, gets and pages a webhook's events and their attempts in Resend's shapes, and replays one", async () => {
    const project = await createOtherProject();
    const sdk = new Resend(project.key, { baseUrl: baseUrl() });
    const stamp = Date.now().toString(36);
    rx.status = 500;
    rx.answer = 'not ready';
    const hook = data(await sdk.webhooks.create({ endpoint: rx.url, events: ['contact.created'] }));

    // 1. an event while the endpoint fails: `attempting` while retries are left, then `failed`
    data(await sdk.contacts.create({ email: `first.${stamp}@example.com` }));
    const seen = new Set<string>();
    const failing = await waitFor(
      async () => {
        const page = data(await sdk.webhooks.events.list({ webhookId: hook.id }));
        if (page.data[0]) seen.add(page.data[0].status);
        return page;
      },
      (page) => page.data[0]?.status === 'failed',
      SLOW,
    );
    expect(seen).toContain('attempting');
    const failedId = failing.data[0].id;
    expect(receiptsOf(failedId)).toHaveLength(4);

    // 2. two more once it answers
    rx.status = 200;
    rx.answer = 'thanks';
    data(await sdk.contacts.create({ email: `second.${stamp}@example.com` }));
    data(await sdk.contacts.create({ email: `third.${stamp}@example.com` }));
    const log = await waitFor(
      async () => data(await sdk.webhooks.events.list({ webhookId: hook.id })),
      (page) => page.data.length === 3 && page.data.every((e) => e.status !== 'pending' && e.status !== 'attempting'),
      SLOW,
    );
    const payloadOf = (eventId: string) => receiptsOf(eventId)[0].json;
    const entry = (eventId: string, status: string) => ({
      id: eventId,
      type: 'contact.created',
      created_at: payloadOf(eventId).created_at,
      status,
    });
    const [third, second] = log.data.map((e) => e.id);
    expect(log).toEqual({
      object: 'list',
      has_more: false,
      data: [entry(third, 'success'), entry(second, 'success'), entry(failedId, 'failed')],
    });
    for (const e of log.data)
      expect(e).toMatchObject({ id: expect.stringMatching(ID), created_at: expect.stringMatching(TIME) });
    expect(payloadOf(third).data.object.email).toBe(`third.${stamp}@example.com`); // newest first

    // pages: `limit` and `after` (an event id)
    const firstPage = data(await sdk.webhooks.events.list({ webhookId: hook.id, limit: 2 }));
    expect(firstPage).toEqual({ object: 'list', has_more: true, data: log.data.slice(0, 2) });
    expect(data(await sdk.webhooks.events.list({ webhookId: hook.id, limit: 2, after: second }))).toEqual({
      object: 'list',
      has_more: false,
      data: [log.data[2]],
    });

    // 3. one event: what was sent, exactly
    expect(data(await sdk.webhooks.events.get({ webhookId: hook.id, eventId: failedId }))).toEqual({
      object: 'webhook_event',
      ...entry(failedId, 'failed'),
      next_attempt_at: null,
      payload: payloadOf(failedId),
    });
    expect(payloadOf(failedId)).toMatchObject({
      object: 'event',
      id: failedId,
      type: 'contact.created',
      data: { object: { email: `first.${stamp}@example.com` } },
    });

    // 4. its attempts, newest first, with what the endpoint answered
    const attempts = data(await sdk.webhooks.events.attempts.list({ webhookId: hook.id, eventId: failedId }));
    expect(attempts).toEqual({
      object: 'list',
      has_more: false,
      data: Array.from({ length: 4 }, () => ({
        id: expect.stringMatching(ID),
        http_status_code: 500,
        response: 'not ready',
        sent_at: expect.stringMatching(TIME),
      })),
    });
    const sentAt = attempts.data.map((a) => a.sent_at);
    expect([...sentAt].sort().reverse()).toEqual(sentAt);
    const firstTwo = data(await sdk.webhooks.events.attempts.list({ webhookId: hook.id, eventId: failedId, limit: 2 }));
    expect(firstTwo).toEqual({ object: 'list', has_more: true, data: attempts.data.slice(0, 2) });
    const rest = data(
      await sdk.webhooks.events.attempts.list({
        webhookId: hook.id,
        eventId: failedId,
        limit: 2,
        after: firstTwo.data[1].id,
      }),
    );
    expect(rest).toEqual({ object: 'list', has_more: false, data: attempts.data.slice(2) });
    expect(data(await sdk.webhooks.events.attempts.list({ webhookId: hook.id, eventId: third })).data).toEqual([
      {
        id: expect.stringMatching(ID),
        http_status_code: 200,
        response: 'thanks',
        sent_at: expect.stringMatching(TIME),
      },
    ]);

    // 5. a replay delivers the failed event again: the same body, one more attempt, now a success
    expect(data(await sdk.webhooks.events.replay({ webhookId: hook.id, eventId: failedId }))).toEqual({
      object: 'webhook_event',
      id: failedId,
    });
    await waitFor(
      async () => receiptsOf(failedId).length,
      (n) => n === 5,
      SLOW,
    );
    expect(receiptsOf(failedId)[4].body).toBe(receiptsOf(failedId)[0].body);
    const replayed = await waitFor(
      async () => data(await sdk.webhooks.events.get({ webhookId: hook.id, eventId: failedId })),
      (e) => e.status === 'success',
      SLOW,
    );
    expect(replayed).toMatchObject({ status: 'success', next_attempt_at: null });
    const afterReplay = data(await sdk.webhooks.events.attempts.list({ webhookId: hook.id, eventId: failedId }));
    expect(afterReplay.data).toHaveLength(5);
    expect(afterReplay.data[0]).toMatchObject({ http_status_code: 200, response: 'thanks' });
    expect(afterReplay.data.slice(1)).toEqual(attempts.data);

    // 6. the contract's routes over the same records are unchanged: deliveries keep their own ids and fields
    const deliveries = (await api.get(`/webhooks/${hook.id}/deliveries`, { key: project.key })).body.data;
    expect(deliveries.map((d: any) => d.event_id)).toEqual([third, second, failedId]);
    expect(deliveries[2]).toMatchObject({
      object: 'webhook_delivery',
      status: 'delivered',
      attempt_count: 5,
      response_code: 200,
    });
    expect(deliveries[2].id).not.toBe(failedId);
    const projectLog = (await api.get('/webhook-events', { key: project.key })).body.data;
    expect(projectLog.map((e: any) => e.id)).toEqual(deliveries.map((d: any) => d.id));

    // 7. the same routes over plain HTTP, each answer checked against its OpenAPI schema (test/support/http.ts)
    const base = `/webhooks/${hook.id}/events`;
    expect(await api.get(`${base}?limit=1`, { key: project.key })).toMatchObject({
      status: 200,
      body: { has_more: true, data: [log.data[0]] },
    });
    expect(await api.get(`${base}/${third}`, { key: project.key })).toMatchObject({
      status: 200,
      body: { id: third, status: 'success' },
    });
    expect(await api.get(`${base}/${third}/attempts`, { key: project.key })).toMatchObject({
      status: 200,
      body: { data: [{ http_status_code: 200 }] },
    });
    // a delivered event is sent again too: 202, as the contract's retry answers
    expect(await api.post(`${base}/${third}/replay`, undefined, { key: project.key })).toMatchObject({
      status: 202,
      body: { object: 'webhook_event', id: third },
    });
    await waitFor(
      async () => receiptsOf(third).length,
      (n) => n === 2,
      SLOW,
    );
  }, 120_000);

  it('lists the attempts a delivery kept as records of their own before attempts were kept on it, beside the newer ones', async () => {
    const project = await createOtherProject();
    const sdk = new Resend(project.key, { baseUrl: baseUrl() });
    rx.status = 200;
    rx.answer = 'thanks';
    const hook = data(await sdk.webhooks.create({ endpoint: rx.url, events: ['contact.created'] }));
    data(await sdk.contacts.create({ email: `legacy.${Date.now().toString(36)}@example.com` }));
    const [event] = (
      await waitFor(
        async () => data(await sdk.webhooks.events.list({ webhookId: hook.id })),
        (page) => page.data[0]?.status === 'success',
        SLOW,
      )
    ).data;
    const [kept] = data(await sdk.webhooks.events.attempts.list({ webhookId: hook.id, eventId: event.id })).data;

    // two failed attempts as the dispatcher recorded them before: items in the delivery's attempt partition, counted
    const deliveryId = deliveryIdOf(hook.id, event.id);
    const earlier = [3_000, 2_000].map((ago, i) => {
      const sentAt = new Date(Date.parse(kept.sent_at) - ago).toISOString();
      const id = newId(Date.parse(sentAt));
      return {
        ...keys.webhookAttempt(project.projectId, deliveryId, id),
        type: 'webhook_attempt',
        id,
        project_id: project.projectId,
        webhook_id: hook.id,
        delivery_id: deliveryId,
        number: i + 1,
        http_status_code: 503,
        response: `try ${i + 1}`,
        sent_at: sentAt,
        expires_at: Math.floor(Date.now() / 1000) + 3600,
      };
    });
    for (const item of earlier) await putItem(put(item));
    await updateItem(
      update(keys.webhookDelivery(project.projectId, hook.id, deliveryId), { add: { attempt_count: earlier.length } }),
    );

    const attempts = data(await sdk.webhooks.events.attempts.list({ webhookId: hook.id, eventId: event.id }));
    expect(attempts.data.map((a) => [a.http_status_code, a.response])).toEqual([
      [200, 'thanks'],
      [503, 'try 2'],
      [503, 'try 1'],
    ]);
    expect(attempts.data[0]).toEqual(kept);
    const firstTwo = data(await sdk.webhooks.events.attempts.list({ webhookId: hook.id, eventId: event.id, limit: 2 }));
    expect(firstTwo).toEqual({ object: 'list', has_more: true, data: attempts.data.slice(0, 2) });
    expect(
      data(
        await sdk.webhooks.events.attempts.list({
          webhookId: hook.id,
          eventId: event.id,
          limit: 2,
          after: firstTwo.data[1].id,
        }),
      ),
    ).toEqual({ object: 'list', has_more: false, data: attempts.data.slice(2) });
  }, 60_000);

  it('answers 404 for an unknown webhook or an event it did not get, and 422 for what the SDK does not send', async () => {
    const project = await createOtherProject();
    const sdk = new Resend(project.key, { baseUrl: baseUrl() });
    const hook = data(await sdk.webhooks.create({ endpoint: rx.url, events: ['contact.created'] }));
    const notFound = (what: string) => ({
      data: null,
      error: expect.objectContaining({ name: 'not_found', message: `${what} not found` }),
    });

    expect(await sdk.webhooks.events.list({ webhookId: MISSING })).toMatchObject(notFound('Webhook'));
    expect(await sdk.webhooks.events.get({ webhookId: MISSING, eventId: MISSING })).toMatchObject(notFound('Webhook'));
    expect(await sdk.webhooks.events.get({ webhookId: hook.id, eventId: MISSING })).toMatchObject(
      notFound('Webhook event'),
    );
    expect(await sdk.webhooks.events.attempts.list({ webhookId: hook.id, eventId: MISSING })).toMatchObject(
      notFound('Webhook event'),
    );
    expect(await sdk.webhooks.events.replay({ webhookId: hook.id, eventId: MISSING })).toMatchObject(
      notFound('Webhook event'),
    );
    expect(data(await sdk.webhooks.events.list({ webhookId: hook.id }))).toEqual({
      object: 'list',
      has_more: false,
      data: [],
    });

    const base = `/webhooks/${hook.id}/events`;
    expect(await api.get(`${base}/not-an-id`, { key: project.key })).toMatchObject({
      status: 422,
      body: { name: 'validation_error' },
    });
    expect(await api.get(`${base}?before=${MISSING}`, { key: project.key })).toMatchObject({ status: 422 }); // as on Resend: `after` only
    expect(await api.get(`${base}?limit=101`, { key: project.key })).toMatchObject({ status: 422 });
    expect((await api.get(base, { key: 'es_live_nope' })).status).toBe(401);
  }, 60_000);
});
