/**
 * One project's failing endpoints do not hold another project's webhook deliveries. Project A's
 * endpoint accepts connections and never answers, project B's never accepts one
 * (test/support/unresponsive-endpoints.ts); project C's answers at once. Once A's and B's
 * endpoints have failed slowly a few times, a flood of events for both is throttled by the
 * dispatcher (shared/webhooks/throttle.ts) instead of being sent all at once, and C's event
 * arrives while the flood is still waiting, not after its attempts time out.
 *
 * The local SQS does not emulate fair queues (on AWS the delivery messages' project groups make
 * SQS hand C's message over first), so what is proved here is the dispatcher's own behaviour: the
 * runtime's dispatcher has 20 pollers of up to 10 messages each, and without the throttle the
 * flood's 200 attempts of 15 s (3 s to connect for B) take every one of them, C's message waiting
 * behind. Events for A and B are written to the table's outbox directly (as their operations
 * would), 100 per transaction.
 */
import { eventWrite } from '../../shared/events/events';
import * as keys from '../../shared/platform/db/keys';
import { queryPage, transact } from '../../shared/platform/db/table';
import { api } from '../support/http';
import { createOtherProject, useRuntimeTable } from '../support/table';
import { hangingEndpoint, unacceptingEndpoint, type UnresponsiveEndpoint } from '../support/unresponsive-endpoints';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();

const FLOOD = 100;
const stops: (() => Promise<unknown>)[] = [];
afterEach(async () => {
  await Promise.all(stops.splice(0).map((stop) => stop()));
});

async function projectWithWebhook(endpoint: string, events: string[]) {
  const project = await createOtherProject();
  const res = await api.post('/webhooks', { endpoint, events }, { key: project.key });
  expect(res.status).toBe(201);
  const webhookId: string = res.body.id;
  // deleted first: its pending deliveries are then dropped, not retried against the other suites' runtime
  stops.push(() => api.delete(`/webhooks/${webhookId}`, { key: project.key }));
  return { ...project, webhookId };
}

const contactEvents = (projectId: string, count: number) =>
  transact(
    Array.from({ length: count }, (_, i) =>
      eventWrite({ projectId, livemode: true }, 'contact.created', {
        object: 'contact',
        id: `c${i}`,
        email: `c${i}@example.com`,
      }),
    ),
  );

const deliveries = async (projectId: string, webhookId: string) =>
  (await queryPage(keys.webhookDeliveries(projectId, webhookId), { limit: 1000 })).items;

it("delivers a healthy project's event while two failing projects' floods are still waiting", async () => {
  const endpoints: UnresponsiveEndpoint[] = await Promise.all([hangingEndpoint(), unacceptingEndpoint()]);
  const healthy = await new WebhookReceiver().start();
  stops.push(...endpoints.map((e) => () => e.stop()), () => healthy.stop());
  const slow = await Promise.all(endpoints.map((e) => projectWithWebhook(e.url, ['contact.created'])));
  const c = await projectWithWebhook(healthy.url, ['api_key.created']);

  // a few slow failures each: their first attempts go out together, then the endpoints count as failing
  await Promise.all(slow.map((p) => contactEvents(p.projectId, 4)));
  await waitFor(
    async () =>
      Promise.all(
        slow.map(
          async (p) => (await api.get(`/webhooks/${p.webhookId}`, { key: p.key })).body.consecutive_failures as number,
        ),
      ),
    (counts) => counts.every((n) => n >= 3),
    40_000,
    250,
  );

  await Promise.all(slow.map((p) => contactEvents(p.projectId, FLOOD)));
  await waitFor(
    async () => Promise.all(slow.map(async (p) => (await deliveries(p.projectId, p.webhookId)).length)),
    (counts) => counts.every((n) => n === FLOOD + 4),
    20_000,
    250,
  );
  expect((await api.post('/api-keys', { name: 'while others fail' }, { key: c.key })).status).toBe(201);

  await waitFor(
    async () => healthy.receipts.filter((r) => r.json?.type === 'api_key.created').length,
    (n) => n === 1,
    10_000, // the flood's attempts alone would take 15 s (A) each, 20 pollers at a time
  );
  // the floods are mostly not yet attempted: throttled, not sent all at once
  for (const p of slow) {
    const waiting = (await deliveries(p.projectId, p.webhookId)).filter(
      (d) => d.status === 'pending' && d.attempt_count === 0,
    );
    expect(waiting.length).toBeGreaterThan(FLOOD / 2);
  }
  expect(endpoints[0].requests).toBeLessThan(FLOOD / 2);
  const [delivered] = (await api.get(`/webhooks/${c.webhookId}/deliveries`, { key: c.key })).body.data;
  expect(delivered).toMatchObject({ status: 'delivered', attempt_count: 1, response_code: 200 });
}, 90_000);
