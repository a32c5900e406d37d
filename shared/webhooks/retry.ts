/**
 * Manual retry of a webhook delivery (POST /webhooks/{webhookId}/deliveries/{deliveryId}/retry),
 * and Resend's replay of an event (POST /webhooks/{webhookId}/events/{eventId}/replay), which is
 * the same retry of that event's delivery; apart from shared/webhooks/webhooks.ts so that only
 * these routes' functions bundle the SQS client.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { update, updateItem, type Item } from '../platform/db/table';
import { unprocessable } from '../platform/errors';
import { nowIso } from '../platform/ids';
import { deliveryId as deliveryIdOf, toDeliveryRecord, type DeliveryItem } from './deliveries';
import { missingEvent } from './event-log';
import type { DeliveryRecord } from './model';
import { deliveryQueue } from './queue';
import { readDelivery } from './webhooks';

/**
 * Manual retry: back to `pending`, due now, with one more attempt allowed (a delivery still in
 * its schedule keeps the rest of it), then a message for the dispatcher. The write is
 * conditional on the status and attempt count that were read; if the dispatcher moved the
 * delivery in between, it is read again.
 */
export async function retryDelivery(
  caller: Caller,
  webhookId: string,
  deliveryId: string,
  onMissingDelivery?: () => Error,
): Promise<DeliveryRecord> {
  for (let round = 0; ; round++) {
    const { webhook, delivery } = await readDelivery(caller, webhookId, deliveryId, onMissingDelivery);
    if (webhook.status === 'disabled') {
      throw unprocessable([
        {
          code: 'webhook_disabled',
          message: 'The webhook is disabled; enable it (PATCH status: enabled) before retrying',
          path: 'webhookId',
        },
      ]);
    }
    const now = nowIso();
    const limit = delivery.status === 'pending' ? delivery.attempt_limit + 1 : delivery.attempt_count + 1;
    const moved = new Error('delivery moved on');
    try {
      const updated = await updateItem<DeliveryItem & Item>(
        update(
          keys.webhookDelivery(caller.projectId, webhookId, deliveryId),
          {
            set: { status: 'pending', attempt_limit: limit, next_attempt_at: now, completed_at: null, updated_at: now },
            condition: {
              expression: '#status = :status AND attempt_count = :count',
              names: { '#status': 'status' },
              values: { ':status': delivery.status, ':count': delivery.attempt_count },
            },
          },
          () => moved,
        ),
      );
      await deliveryQueue
        .enqueue([{ project_id: caller.projectId, webhook_id: webhookId, delivery_id: deliveryId }])
        .then((failed) => {
          if (failed.length) throw new Error('the delivery queue refused the message');
        });
      return toDeliveryRecord(updated);
    } catch (error) {
      if (error !== moved || round >= 2) throw error;
    }
  }
}

/** Resend's replay: the retry above of the event's delivery to the webhook (its id derived from both); 404 names the event. */
export async function replayEvent(
  caller: Caller,
  webhookId: string,
  eventId: string,
): Promise<{ object: 'webhook_event'; id: string }> {
  await retryDelivery(caller, webhookId, deliveryIdOf(webhookId, eventId), missingEvent);
  return { object: 'webhook_event', id: eventId };
}
