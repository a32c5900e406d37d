/**
 * Resend's event log of a webhook (the SDK's `webhooks.events.list`, `.get`, `.attempts.list`;
 * `.replay` is `replayEvent` in ./retry.ts), read from the delivery records that the contract's
 * routes (GET /webhooks/{id}/deliveries, GET /webhook-events) show: nothing is kept twice.
 *
 * 1. An entry is one delivery, named by its EVENT's id, as Resend names entries: the id the
 *    receiver got in `webhook-id`, the delivery's `event_id`. The delivery id is a function of
 *    webhook and event (./deliveries.ts `deliveryId`), so every lookup by (webhook, event) is a
 *    key read, with no index of its own.
 * 2. The list is the webhook's deliveries, newest event first (the Query of the contract's
 *    deliveries list); its `after` cursor, an event id, becomes the delivery id it stands for.
 * 3. The status is the delivery's in Resend's words (`eventLogStatus`).
 * 4. Attempts are those the dispatcher appended to the delivery (./deliveries.ts `newAttempt`),
 *    newest first; a delivery with attempts made before they were kept there (`attempt_count`
 *    above the list's length) has those as items of their own, read beside them.
 *
 * Every read checks the webhook too, in the same round trip: a deleted webhook's log is 404, as
 * its deliveries are on the contract's routes.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { batchGet, getItem, queryPage, type Item } from '../platform/db/table';
import { notFound } from '../platform/errors';
import { withResendFields } from '../events/events';
import type { PlatformEvent } from '../events/model';
import { type AttemptItem, type AttemptRecord, type DeliveryItem, deliveryId } from './deliveries';
import type { EventLogStatus, WebhookEventAttempt, WebhookEventDetail, WebhookEventLog } from './model';

const missingWebhook = () => notFound('Webhook', 'webhookId');
/** An event that was not delivered to this webhook (or is past its 30 days), also for the replay. */
export const missingEvent = () => notFound('Webhook event', 'eventId');

/** Resend's status of a delivery: a `pending` delivery with an attempt made is retrying (or replayed), `attempting`. */
export function eventLogStatus(delivery: Pick<DeliveryItem, 'status' | 'attempt_count'>): EventLogStatus {
  if (delivery.status === 'delivered') return 'success';
  if (delivery.status === 'failed') return 'failed';
  return delivery.attempt_count > 0 ? 'attempting' : 'pending';
}

const toLogEntry = (delivery: DeliveryItem): WebhookEventLog => ({
  id: delivery.event_id,
  type: delivery.event_type,
  created_at: delivery.event_created_at ?? delivery.created_at, // older deliveries: the fan-out's time, within a second of the event's
  status: eventLogStatus(delivery),
});

const toAttempt = (item: AttemptRecord): WebhookEventAttempt => ({
  id: item.id,
  http_status_code: item.http_status_code,
  response: item.response,
  sent_at: item.sent_at,
});

export async function listEventLog(
  caller: Pick<Caller, 'projectId'>,
  webhookId: string,
  page: { limit: number; after?: string },
) {
  const after = page.after === undefined ? undefined : deliveryId(webhookId, page.after);
  const [webhook, { items, hasMore }] = await Promise.all([
    getItem(keys.webhook(caller.projectId, webhookId)),
    queryPage<DeliveryItem & Item>(keys.webhookDeliveries(caller.projectId, webhookId), { limit: page.limit, after }),
  ]);
  if (!webhook) throw missingWebhook();
  return { records: items.map(toLogEntry), hasMore };
}

/** The delivery of `eventId` to the webhook, with whatever else `also` names, in one BatchGet; 404 names whichever is missing. */
async function readEntry(caller: Pick<Caller, 'projectId'>, webhookId: string, eventId: string, also: keys.Key[] = []) {
  const found = await batchGet<Item>([
    keys.webhook(caller.projectId, webhookId),
    keys.webhookDelivery(caller.projectId, webhookId, deliveryId(webhookId, eventId)),
    ...also,
  ]);
  if (!found.some((i) => i.type === 'webhook')) throw missingWebhook();
  const delivery = found.find((i) => i.type === 'webhook_delivery') as DeliveryItem | undefined;
  if (!delivery) throw missingEvent();
  return { delivery, found };
}

export async function getEventLogEntry(
  caller: Pick<Caller, 'projectId'>,
  webhookId: string,
  eventId: string,
): Promise<WebhookEventDetail> {
  const { delivery, found } = await readEntry(caller, webhookId, eventId, [keys.event(caller.projectId, eventId)]);
  const event = found.find((i) => i.type === 'event');
  return {
    object: 'webhook_event',
    ...toLogEntry(delivery),
    next_attempt_at: delivery.next_attempt_at,
    payload: event ? withResendFields(event.event as PlatformEvent) : null,
  }; // as it was sent
}

export async function listEventAttempts(
  caller: Pick<Caller, 'projectId'>,
  webhookId: string,
  eventId: string,
  page: { limit: number; after?: string },
) {
  const { delivery } = await readEntry(caller, webhookId, eventId);
  const kept = delivery.attempts ?? [];
  // attempts made before they were kept on the delivery: at most its attempt limit of them, one page
  const earlier =
    delivery.attempt_count > kept.length
      ? (await queryPage<AttemptItem & Item>(keys.webhookAttempts(caller.projectId, delivery.id), { limit: 100 })).items
      : [];
  const newestFirst = [...kept, ...earlier]
    .sort((a, b) => (a.id < b.id ? 1 : a.id > b.id ? -1 : 0))
    .filter((attempt) => page.after === undefined || attempt.id < page.after);
  return { records: newestFirst.slice(0, page.limit).map(toAttempt), hasMore: newestFirst.length > page.limit };
}
