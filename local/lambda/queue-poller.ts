/**
 * Feeds an SQS consumer the way Lambda's SQS event source mapping does: batches of up to
 * `batchSize`, the handler's `batchItemFailures` left on the queue (they come back after the
 * visibility timeout, and after `maxReceiveCount` receives SQS moves them to the DLQ), every
 * other message deleted. A handler that throws or outlives its function's timeout fails the whole
 * batch, as on Lambda. A batch whose event would pass Lambda's 6 MB is handed over in smaller
 * invocations, as Lambda's poller does; the handler runs as its function (needs, timeout:
 * local/lambda/invocation.ts).
 *
 * The running loops long-poll (WaitTimeSeconds, as Lambda's pollers do): the local SQS answers as
 * soon as a message is there, and an idle queue costs nothing. They used to receive with no wait
 * every 100 ms (the send queues every 20 ms): a few hundred empty receives a second that kept an
 * idle runtime at a quarter of a core, which slowed everything else on a 2-core machine. `stop()`
 * aborts a long poll in flight.
 */
import { DeleteMessageBatchCommand, ReceiveMessageCommand, type Message, type SQSClient } from '@aws-sdk/client-sqs';
import type { SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import type { AnyHandler } from './handlers';
import { eventsWithin, invoke, MAX_BATCH_EVENT_BYTES, type FunctionIdentity } from './invocation';
import { LOCAL_REGION } from '../settings';

export interface QueuePollerOptions {
  /** the consuming function (its name, needs and timeout); its trigger queue is `queueUrl` */
  fn: Omit<FunctionIdentity, 'triggerQueueUrl'>;
  sqs: SQSClient;
  queueUrl: string;
  queueArn: string;
  batchSize: number;
  handler: AnyHandler;
  /** parallel receive loops, like concurrent Lambda invocations (default 1) */
  concurrency?: number;
  /** pause between empty receives (a receive that failed, or one that returned nothing before its wait ended) */
  idleMs?: number;
  /** how long a running loop's receive waits for a message (default LONG_POLL_SECONDS) */
  waitSeconds?: number;
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
        {
          stringValue: value.StringValue,
          binaryValue: value.BinaryValue?.toString(),
          dataType: value.DataType ?? 'String',
          stringListValues: [],
          binaryListValues: [],
        },
      ]),
    ),
    md5OfBody: message.MD5OfBody ?? '',
    eventSource: 'aws:sqs',
    eventSourceARN: queueArn,
    awsRegion: LOCAL_REGION,
  };
}

/** A running loop's long poll: short, so a receive in flight never holds a message's batch long. */
export const LONG_POLL_SECONDS = 5;

export class QueuePoller {
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly aborts = new Set<AbortController>();
  /** messages received and not yet deleted or left to come back (the control API's drain: ../control.ts) */
  inHand = 0;
  /** messages handed to the function since the start */
  handled = 0;

  constructor(private readonly options: QueuePollerOptions) {}

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = Array.from({ length: Math.max(1, this.options.concurrency ?? 1) }, () => this.run());
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const abort of this.aborts) abort.abort();
    await Promise.all(this.loops);
  }

  /** One receive-invoke-delete cycle (the receive waits up to `waitSeconds` for a message); returns how many messages it handled. Exposed for tests. */
  async pollOnce(waitSeconds = 0): Promise<number> {
    const { sqs, queueUrl, batchSize } = this.options;
    const abort = new AbortController();
    this.aborts.add(abort);
    const received = await sqs
      .send(
        new ReceiveMessageCommand({
          QueueUrl: queueUrl,
          MaxNumberOfMessages: Math.min(batchSize, 10),
          WaitTimeSeconds: waitSeconds,
          MessageSystemAttributeNames: ['All'],
          MessageAttributeNames: ['All'],
        }),
        { abortSignal: abort.signal },
      )
      .finally(() => this.aborts.delete(abort));
    const messages = received.Messages ?? [];
    if (messages.length === 0) return 0;
    this.inHand += messages.length;
    try {
      return await this.handle(messages);
    } finally {
      this.inHand -= messages.length;
      this.handled += messages.length;
    }
  }

  private async handle(messages: Message[]): Promise<number> {
    const { sqs, queueUrl, queueArn } = this.options;
    const failed = new Set<string>();
    for (const records of eventsWithin(
      messages.map((m) => toRecord(m, queueArn)),
      MAX_BATCH_EVENT_BYTES,
    )) {
      for (const id of await this.invoke(records)) failed.add(id);
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

  /** The ids of the messages that failed: those the handler reported, or all when it threw or timed out. */
  private async invoke(records: SQSRecord[]): Promise<string[]> {
    const event: SQSEvent = { Records: records };
    try {
      const fn = { ...this.options.fn, triggerQueueUrl: this.options.queueUrl };
      const result = (await invoke(fn, this.options.handler, event)) as SQSBatchResponse | undefined;
      return (result?.batchItemFailures ?? []).map((f) => f.itemIdentifier);
    } catch (error) {
      this.options.onError?.(error);
      return records.map((r) => r.messageId);
    }
  }

  private async run(): Promise<void> {
    while (this.running) {
      let handled = 0;
      try {
        handled = await this.pollOnce(this.options.waitSeconds ?? LONG_POLL_SECONDS);
      } catch (error) {
        if (this.running) this.options.onError?.(error); // an abort by stop() is no error
      }
      if (handled === 0 && this.running) await new Promise((r) => setTimeout(r, this.options.idleMs ?? 100));
    }
  }
}
