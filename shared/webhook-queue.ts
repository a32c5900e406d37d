/**
 * The webhook delivery queue: one message per delivery to attempt, `{project_id, webhook_id,
 * delivery_id}`. The delivery record is the truth; a message only says "look at this
 * delivery", so a duplicate is harmless (the dispatcher claims a delivery before it POSTs) and
 * a retry is the same message made invisible until the attempt is due.
 */
import { ChangeMessageVisibilityCommand, SendMessageBatchCommand, SQSClient } from '@aws-sdk/client-sqs';
import { guarded } from './platform/aws/call-guard';

const sqs = guarded('sqs', new SQSClient({}));

export interface DeliveryMessage {
  project_id: string;
  webhook_id: string;
  delivery_id: string;
}

/** SQS keeps a received message invisible for at most 12 hours. */
export const MAX_VISIBILITY_SECONDS = 12 * 60 * 60;

function queueUrl(): string {
  const url = process.env.QUEUE_URL_WEBHOOK_DELIVERY;
  if (!url) throw new Error('QUEUE_URL_WEBHOOK_DELIVERY is not set');
  return url;
}

/** Sends the messages, 10 per request, in parallel; returns the ones SQS did not take (none when all went). */
export async function enqueueDeliveries(messages: DeliveryMessage[]): Promise<DeliveryMessage[]> {
  const QueueUrl = queueUrl();
  const chunks: DeliveryMessage[][] = [];
  for (let i = 0; i < messages.length; i += 10) chunks.push(messages.slice(i, i + 10));
  const failed = await Promise.all(
    chunks.map(async (chunk) => {
      try {
        const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: chunk.map((m, j) => ({ Id: String(j), MessageBody: JSON.stringify(m) })) }));
        return (out.Failed ?? []).map((f) => chunk[Number(f.Id)]);
      } catch {
        return chunk;
      }
    }),
  );
  return failed.flat();
}

/** Makes a received message come back after `seconds` (capped at SQS's 12 hours). */
export async function delayMessage(receiptHandle: string, seconds: number): Promise<void> {
  const VisibilityTimeout = Math.max(1, Math.min(MAX_VISIBILITY_SECONDS, Math.ceil(seconds)));
  await sqs.send(new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl(), ReceiptHandle: receiptHandle, VisibilityTimeout }));
}
