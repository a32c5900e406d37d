import type { SQSEvent } from 'aws-lambda';
import { logger } from '#shared/platform/log';
import { processSqsBatch, RETRY } from '#shared/platform/aws/batch';
import { receivedContent } from '#shared/receiving/webhook-content';
import { dispatchDelivery } from '#shared/webhooks/dispatch';
import { deliveryQueue, type DeliveryMessage } from '#shared/webhooks/queue';

/**
 * The delivery queue's consumer: one attempt per message (shared/webhooks/dispatch.ts), messages
 * handled concurrently. A delivery with attempts left keeps its message: it is made invisible
 * until the next attempt is due (ChangeMessageVisibility) and reported as a batch item failure,
 * so SQS hands it back then. `receivedContent` is what webhooks with `include_content` get beside
 * `email.received` events. A message that cannot be read, or whose handling throws, is
 * reported too and ends in the DLQ after the queue's maxReceiveCount.
 */
function parse(body: string): DeliveryMessage {
  const message = JSON.parse(body) as Partial<DeliveryMessage>;
  if (
    typeof message.project_id !== 'string' ||
    typeof message.webhook_id !== 'string' ||
    typeof message.delivery_id !== 'string'
  ) {
    throw new Error('not a webhook delivery message');
  }
  return message as DeliveryMessage;
}

export const handler = (event: SQSEvent) =>
  processSqsBatch(
    event,
    async (record) => {
      const comeBackIn = await dispatchDelivery(parse(record.body), receivedContent);
      if (comeBackIn === undefined) return;
      // Without the delay it comes back after the queue's visibility timeout, early, and is put off again then.
      await deliveryQueue
        .delay(record.receiptHandle, comeBackIn)
        .catch((error) => logger.warn('could not delay a webhook message', { message_id: record.messageId, error }));
      return RETRY;
    },
    { onError: (error, record) => logger.error('webhook delivery failed', { message_id: record.messageId, error }) },
  );
