/**
 * The webhook delivery queue: one message per delivery to attempt, `{project_id, webhook_id,
 * delivery_id}`. The delivery record is the truth; a message only says "look at this
 * delivery", so a duplicate is harmless (the dispatcher claims a delivery before it POSTs) and
 * a retry is the same message made invisible until the attempt is due (`delay`).
 *
 * Each message is sent in its project's message group (MessageGroupId = project id), which makes
 * this standard queue an SQS fair queue: when one project has a large backlog or many messages in
 * flight (an endpoint that is slow or down), SQS hands the dispatcher the other projects' messages
 * first, so their deliveries do not wait behind it (the same as the `send-bulk` lane). No queue
 * setting is needed and ordering, throughput and at-least-once delivery stay those of a standard
 * queue. The local SQS keeps the group but does not reorder by it: locally the dispatcher's own
 * throttle of failing endpoints (shared/webhooks/throttle.ts) is what keeps others moving.
 */
import { queue } from '../platform/aws/queues';

export interface DeliveryMessage {
  project_id: string;
  webhook_id: string;
  delivery_id: string;
  /** the delivery's event, so the dispatcher reads it in the same BatchGet as the delivery and the webhook (absent from messages of a retry or an older fan-out: then read after the claim) */
  event_id?: string;
}

/** `enqueue` resolves with the messages SQS did not take (none when all went): the fan-out reports exactly those as failed. */
export const deliveryQueue = /* @__PURE__ */ queue<DeliveryMessage>('webhook-delivery', 'return', {
  group: (message) => message.project_id,
});
