/**
 * The webhook delivery queue: one message per delivery to attempt, `{project_id, webhook_id,
 * delivery_id}`. The delivery record is the truth; a message only says "look at this
 * delivery", so a duplicate is harmless (the dispatcher claims a delivery before it POSTs) and
 * a retry is the same message made invisible until the attempt is due (`delay`).
 */
import { queue } from '../platform/aws/queues';

export interface DeliveryMessage {
  project_id: string;
  webhook_id: string;
  delivery_id: string;
}

/** `enqueue` resolves with the messages SQS did not take (none when all went): the fan-out reports exactly those as failed. */
export const deliveryQueue = queue<DeliveryMessage>('webhook-delivery', 'return');
