/**
 * The dispatcher's throttle of a webhook whose endpoint keeps failing slowly
 * (shared/webhooks/throttle.ts), one delivery at a time: the real dispatch step
 * (shared/webhooks/dispatch.ts) against the runtime's table, on deliveries this test writes
 * itself with no queue message, so the runtime's own dispatcher never sees them. The webhook is
 * subscribed to an event type this test does not emit, so the runtime's fan-out makes none either.
 */
import { eventWrite } from '../../shared/events/events';
import type { Caller } from '../../shared/platform/caller';
import * as keys from '../../shared/platform/db/keys';
import { getItem, put, putItem, transact, update, updateItem, type WriteAction } from '../../shared/platform/db/table';
import { newId } from '../../shared/platform/ids';
import { newDeliveryItem } from '../../shared/webhooks/deliveries';
import { dispatchDelivery } from '../../shared/webhooks/dispatch';
import { THROTTLE_AFTER_SLOW_FAILURES, THROTTLE_SPACING_MS } from '../../shared/webhooks/throttle';
import { createWebhook } from '../../shared/webhooks/webhooks';
import { useRuntimeTable } from '../support/table';
import { unacceptingEndpoint } from '../support/unresponsive-endpoints';
import { waitFor } from '../support/wait';
import { WebhookReceiver } from '../support/webhook-receiver';

useRuntimeTable();
const saved = { ...process.env };
beforeAll(() =>
  Object.assign(process.env, { ALLOW_HTTP_LOOPBACK_WEBHOOKS: 'true', WEBHOOK_RETRY_SCHEDULE_SECONDS: '1,1,1' }),
);
afterAll(() => {
  for (const name of ['ALLOW_HTTP_LOOPBACK_WEBHOOKS', 'WEBHOOK_RETRY_SCHEDULE_SECONDS']) {
    if (saved[name] === undefined) delete process.env[name];
    else process.env[name] = saved[name];
  }
});

/** `count` new deliveries to the webhook, due now, each of a stored event; answers their queue messages. */
async function newDeliveries(caller: Caller, webhookId: string, count: number) {
  const writes = Array.from({ length: count }, (_, i) =>
    eventWrite(caller, 'contact.created', { object: 'contact', id: `c${i}` }),
  );
  await transact(writes);
  const now = new Date().toISOString();
  return Promise.all(
    writes.map(async (write: WriteAction) => {
      const event = (
        write.params as { Item: { event: { id: string; type: string; created_at: string }; expires_at: number } }
      ).Item;
      const item = newDeliveryItem(
        {
          projectId: caller.projectId,
          id: event.event.id,
          type: event.event.type,
          createdAt: event.event.created_at,
          expiresAt: event.expires_at,
        },
        webhookId,
        now,
      );
      await putItem(put(item));
      return { project_id: caller.projectId, webhook_id: webhookId, delivery_id: item.id };
    }),
  );
}

it(`after ${THROTTLE_AFTER_SLOW_FAILURES} slow failures, spaces the webhook's attempts ${THROTTLE_SPACING_MS / 1000} s apart, holding the others with no attempt made or counted`, async () => {
  const caller: Caller = { projectId: newId(), livemode: true, permission: 'full_access' };
  const down = await unacceptingEndpoint();
  const receiver = await new WebhookReceiver().start();
  try {
    const hook = await createWebhook(caller, { endpoint: down.url, events: ['domain.deleted'] });
    const webhookKey = keys.webhook(caller.projectId, hook.id);

    // three attempts that each wait for the connect timeout: slow failures, all attempted at once (not throttled yet)
    const first = await newDeliveries(caller, hook.id, 3);
    expect(await Promise.all(first.map((m) => dispatchDelivery(m)))).toEqual([1, 1, 1]); // the schedule's next delay
    expect(await getItem(webhookKey)).toMatchObject({ slow_failures: 3, consecutive_failures: 3 });

    // the endpoint now answers (changed in the table, so the counters stay): the throttle still spaces attempts
    await updateItem(update(webhookKey, { set: { endpoint: receiver.url } }));
    const next = await newDeliveries(caller, hook.id, 3);
    const started = Date.now();
    const results = await Promise.all(next.map((m) => dispatchDelivery(m)));
    expect(receiver.receipts).toHaveLength(1); // one slot now; the other two wait for theirs
    const attempted = results.indexOf(undefined);
    expect(attempted).toBeGreaterThanOrEqual(0);
    const waits = results.filter((r): r is number => r !== undefined).sort((a, b) => a - b);
    expect(waits).toHaveLength(2);
    const spacing = THROTTLE_SPACING_MS / 1000;
    expect(waits[0]).toBeGreaterThan(spacing - 1.5);
    expect(waits[0]).toBeLessThanOrEqual(spacing);
    expect(waits[1]).toBeGreaterThan(2 * spacing - 1.5);
    expect(waits[1]).toBeLessThanOrEqual(2 * spacing);
    const held = await Promise.all(
      next
        .filter((_, i) => i !== attempted)
        .map((m) => getItem(keys.webhookDelivery(caller.projectId, hook.id, m.delivery_id))),
    );
    for (const delivery of held) {
      expect(delivery).toMatchObject({ status: 'pending', attempt_count: 0, throttled_until: expect.any(Number) });
      expect(Date.parse(delivery!.next_attempt_at)).toBe(delivery!.throttled_until); // the API shows when it goes
      expect(delivery!.throttled_until).toBeGreaterThan(started);
    }
    // the success resets the slow failures: new deliveries are no longer throttled ...
    expect(await getItem(webhookKey)).toMatchObject({ slow_failures: 0, consecutive_failures: 0 });
    // ... and a held one keeps its slot: it attempts once that comes, not before
    const heldMessage = next.find((m) => m.delivery_id === held[0]!.id)!;
    expect(await dispatchDelivery(heldMessage)).toBeGreaterThan(0);
    expect(receiver.receipts).toHaveLength(1);
    await waitFor(
      () => dispatchDelivery(heldMessage),
      (comeBackIn) => comeBackIn === undefined,
      3 * THROTTLE_SPACING_MS,
      250,
    );
    expect(await getItem(keys.webhookDelivery(caller.projectId, hook.id, heldMessage.delivery_id))).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
    });
    expect(Date.now()).toBeGreaterThanOrEqual(held[0]!.throttled_until - 1000);
    expect(receiver.receipts).toHaveLength(2);
    expect(
      (await getItem(keys.webhookDelivery(caller.projectId, hook.id, heldMessage.delivery_id)))?.throttled_until,
    ).toBeUndefined();
  } finally {
    await Promise.all([down.stop(), receiver.stop()]);
  }
}, 30_000);

it('resets the slow failures on a failure that came back quickly: an endpoint answering 503 at once is not throttled', async () => {
  const caller: Caller = { projectId: newId(), livemode: true, permission: 'full_access' };
  const receiver = await new WebhookReceiver().start();
  receiver.status = 503;
  try {
    const hook = await createWebhook(caller, { endpoint: receiver.url, events: ['domain.deleted'] });
    const webhookKey = keys.webhook(caller.projectId, hook.id);
    await updateItem(update(webhookKey, { set: { slow_failures: THROTTLE_AFTER_SLOW_FAILURES - 1 } }));
    const messages = await newDeliveries(caller, hook.id, 5);
    for (const message of messages) expect(await dispatchDelivery(message)).toBe(1);
    expect(receiver.receipts).toHaveLength(5); // every one attempted at once
    expect(await getItem(webhookKey)).toMatchObject({ slow_failures: 0, consecutive_failures: 5 });
  } finally {
    await receiver.stop();
  }
});
