/**
 * Event fan-out: the table's stream (filtered to inserted event items, the outbox of every
 * change) -> one delivery record and one queue message per webhook that should get the event.
 *
 * For each event: the project's webhooks (one Query on its key, once per project per batch);
 * for each one not disabled that subscribes to the type and existed when the event was created
 * (the stream can lag a webhook's creation), a conditional put of the delivery,
 * whose id is derived from webhook and event (shared/webhooks/deliveries.ts). A replayed record
 * (Lambda retries a batch that failed, or that it could not checkpoint) makes no new delivery.
 * Its put fails, and if that delivery is still `pending` with no attempt made, its message is
 * sent again: the first run may have died between the put and the send. A message sent twice
 * is harmless, because the dispatcher claims a delivery before it POSTs.
 */
import * as keys from '../platform/db/keys';
import { isConditionFailed, put, putItem, queryPage, type Item } from '../platform/db/table';
import { logger } from '../platform/log';
import { nowIso } from '../platform/clock';
import { newDeliveryItem, type DeliveryItem, type OutboxEvent } from './deliveries';
import { deliveryQueue, type DeliveryMessage } from './queue';
import type { WebhookItem } from './webhooks';

async function projectWebhooks(projectId: string): Promise<WebhookItem[]> {
  const all: WebhookItem[] = [];
  let after: string | undefined;
  do {
    const page = await queryPage<WebhookItem & Item>(keys.webhooks(projectId), { limit: 100, after });
    all.push(...page.items);
    after = page.hasMore ? page.items[page.items.length - 1].id : undefined;
  } while (after);
  return all;
}

/** The message for the delivery of `event` to `webhook`: after writing it, or when an earlier run wrote it but may not have sent it. */
async function deliveryMessage(
  event: OutboxEvent,
  webhook: WebhookItem,
  now: string,
): Promise<DeliveryMessage | undefined> {
  const item = newDeliveryItem(event, webhook.id, now);
  const message = { project_id: event.projectId, webhook_id: webhook.id, delivery_id: item.id, event_id: event.id };
  try {
    await putItem(put(item, { ifAbsent: { tag: 'delivery exists', withItem: true } }));
    return message;
  } catch (error) {
    if (!isConditionFailed(error, 'delivery exists')) throw error;
    const existing = error.item as DeliveryItem | undefined; // as the put found it: no second read
    return existing?.status === 'pending' && existing.attempt_count === 0 ? message : undefined;
  }
}

/**
 * Fans out `events` (in stream order) and answers the index of the first one that did not fully
 * go out, or -1. Lambda retries a stream batch from that record on, so everything after it runs
 * again too, which the deterministic ids make harmless.
 */
export async function fanOut(events: OutboxEvent[]): Promise<number> {
  const webhooks = new Map<string, Promise<WebhookItem[]>>();
  const now = nowIso();
  const perEvent = await Promise.all(
    events.map(async (event, index) => {
      try {
        let list = webhooks.get(event.projectId);
        if (!list) webhooks.set(event.projectId, (list = projectWebhooks(event.projectId)));
        const targets = (await list).filter(
          (w) =>
            w.status !== 'disabled' && (w.events as string[]).includes(event.type) && w.created_at <= event.createdAt,
        );
        const messages = await Promise.all(targets.map((w) => deliveryMessage(event, w, now)));
        return messages.filter((m): m is DeliveryMessage => m !== undefined).map((message) => ({ index, message }));
      } catch (error) {
        logger.error('webhook fan-out failed', { event_id: event.id, project_id: event.projectId, error });
        return [{ index, message: undefined }];
      }
    }),
  );
  const entries = perEvent.flat();
  const toSend = entries.filter((e): e is { index: number; message: DeliveryMessage } => e.message !== undefined);
  const unsent = new Set(
    await deliveryQueue.enqueue(toSend.map((e) => e.message)).catch(() => toSend.map((e) => e.message)),
  );
  const failed = entries.filter((e) => e.message === undefined || unsent.has(e.message)).map((e) => e.index);
  if (unsent.size > 0) logger.error('webhook delivery messages not sent', { count: unsent.size });
  return failed.length ? Math.min(...failed) : -1;
}
