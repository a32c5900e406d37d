/**
 * Feeds an SQS consumer the way Lambda's SQS event source mapping does: batches of up to
 * `batchSize`, the handler's `batchItemFailures` left on the queue (they come back after the
 * visibility timeout, and after `maxReceiveCount` receives SQS moves them to the DLQ), every
 * other message deleted. A handler that throws fails the whole batch, as on Lambda.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AnyHandler } from './handlers';
import { lambdaContext } from './lambda-context';

export interface QueuePollerOptions {
  name: string;
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  handler: AnyHandler;
  /** parallel receive loops, like concurrent Lambda invocations (default 1) */
  concurrency?: number;
  /** pause between empty receives */
  idleMs?: number;
  onError?: (error: unknown) => void;
}

function toRecord(message: Message, queueArn: string): SQSRecord {
  const attributes = (message.Attributes ?? {}) as Record<string, string>;
  return {
    messageId: message.MessageId!,
    receiptHandle: message.ReceiptHandle!,
    body: message.Body ?? '',
    attributes: {
      ApproximateReceiveCount: attributes.ApproximateReceiveCount ?? '1',
      SentTimestamp: attributes.SentTimestamp ?? String(Date.now()),
      SenderId: attributes.SenderId ?? 'local',
      ApproximateFirstReceiveTimestamp: attributes.ApproximateFirstReceiveTimestamp ?? String(Date.now()),
      ...attributes,
    },
    messageAttributes: Object.fromEntries(
      Object.entries(message.MessageAttributes ?? {}).map(([name, value]) => [
        name,
        { stringValue: value.StringValue, binaryValue: value.BinaryValue?.toString(), dataType: value.DataType ?? 'String', stringListValues: [], binaryListValues: [] },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: 'ap-southeast-2',
  };
}

export class QueuePoller {
  private running = false;
  private loops: Promise<void>[] = [];

  constructor(private readonly options: QueuePollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = Array.from({ length: Math.max(1, this.options.concurrency ?? 1) }, () => this.run());
  }

  async stop(): Promise<void> {
    this.running = false;
    await Promise.all(this.loops);
  }

  /** One receive-invoke-delete cycle; returns how many messages it handled. Exposed for tests. */
  async pollOnce(): Promise<number> {
    const { sqs, queueUrl, queueArn, batchSize, handler, name } = this.options;
    const received = await sqs.send(
      new ReceiveMessageCommand({
        QueueUrl: queueUrl,
        MaxNumberOfMessages: Math.min(batchSize, 10),
        WaitTimeSeconds: 0,
        MessageSystemAttributeNames: ['All'],
        MessageAttributeNames: ['All'],
      }),
    );
    const messages = received.Messages ?? [];
    if (messages.length === 0) return 0;
    const event: SQSEvent = { Records: messages.map((m) => toRecord(m, queueArn)) };
    let failed: Set<string>;
    try {
      const result = (await handler(event, lambdaContext(name, 30_000))) as SQSBatchResponse | undefined;
      failed = new Set((result?.batchItemFailures ?? []).map((f) => f.itemIdentifier));
    } catch (error) {
      this.options.onError?.(error);
      failed = new Set(messages.map((m) => m.MessageId!)); // a thrown error fails the whole batch
    }
    const done = messages.filter((m) => !failed.has(m.MessageId!));
    if (done.length > 0) {
      await sqs.send(
        new DeleteMessageBatchCommand({
          QueueUrl: queueUrl,
          Entries: done.map((m, i) => ({ Id: String(i), ReceiptHandle: m.ReceiptHandle! })),
        }),
      );
    }
    return messages.length;
  }

  private async run(): Promise<void> {
    while (this.running) {
      let handled = 0;
      try {
        handled = await this.pollOnce();
      } catch (error) {
        this.options.onError?.(error);
      }
      if (handled === 0 && this.running) await new Promise((r) => setTimeout(r, this.options.idleMs ?? 100));
    }
  }
}
