import { DeleteMessageBatchCommand, ReceiveMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSRecord } from 'aws-lambda';

/** An SQS record as Lambda hands it to a queue worker, for tests that call a worker's handler directly. */
export const sqsRecord = (messageId: string, body: string, eventSourceARN = 'arn'): SQSRecord => ({
  messageId,
  receiptHandle: messageId,
  body,
  attributes: {} as SQSRecord['attributes'],
  messageAttributes: {},
  md5OfBody: '',
  eventSource: 'aws:sqs',
  eventSourceARN,
  awsRegion: 'ap-southeast-2',
});

/**
 * Every message on a queue, received and deleted by `receivers` side by side until each found it
 * empty twice: their bodies, repeats included. Deleted as read: a message only received would come
 * back after its visibility and be counted again later.
 */
export async function receiveAndDeleteAll(
  sqs: SQSClient,
  queueUrl: string,
  { receivers = 1, visibilityTimeout = 60 }: { receivers?: number; visibilityTimeout?: number } = {},
): Promise<string[]> {
  const bodies: string[] = [];
  const receiver = async () => {
    for (let empty = 0; empty < 2; ) {
      const { Messages: messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: 10,
          WaitTimeSeconds: 0,
          VisibilityTimeout: visibilityTimeout,
        }),
      );
      if (!messages.length) {
        empty++;
        continue;
      }
      bodies.push(...messages.map((m) => m.Body!));
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: messages.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
  };
  await Promise.all(Array.from({ length: receivers }, receiver));
  return bodies;
}
