/**
 * The SQS queues the service sends to, through ONE client (guarded, like every AWS client: see
 * call-guard.ts). A feature makes its typed queue here and keeps the message type beside it,
 * with what a message means and why a duplicate is harmless (shared/emails/send-queue.ts,
 * shared/webhooks/queue.ts, shared/broadcasts/queue.ts); callers use that queue's `enqueue` and
 * `delay`.
 *
 * - `enqueue` sends the messages as JSON in SendMessageBatch requests of at most 10 entries and
 *   256 KiB of bodies (SQS's limits for one request), the requests in parallel.
 * - What happens to messages SQS does not take is the queue's `onRefused`, fixed when it is made:
 *   `'throw'` rejects (SQS's own error when a request fails, else an Error naming how many it
 *   refused), for callers whose messages have another way out (a dispatcher re-enqueues them);
 *   `'return'` resolves with the messages not taken (a request that failed: all of its
 *   messages), for a caller that reports exactly those as failed.
 * - `delay` makes a received message come back after the given seconds (ChangeMessageVisibility,
 *   at most SQS's 12 hours): a retry that is the same message, later.
 * - `backlog` is the queue's ApproximateNumberOfMessages (for its own consumer: the event source
 *   mapping's grant covers GetQueueAttributes on its queue).
 * - A queue made with `group` sends each message with that MessageGroupId: on a standard queue
 *   that is an SQS fair queue, which keeps one group's backlog from delaying the others.
 * - A queue made with `delaySeconds` sends each message with that DelaySeconds (SQS: at most 900):
 *   it becomes visible to its consumer only then.
 */
import {
  ChangeMessageVisibilityCommand,
  GetQueueAttributesCommand,
  SendMessageBatchCommand,
  SQSClient,
} from '@aws-sdk/client-sqs';
import { guarded } from './call-guard';
import { sdkLogger } from './sdk-logger';

// pure: a bundle that imports this module but sends nothing leaves the client out (esbuild drops unused pure calls)
const sqs = /* @__PURE__ */ guarded('sqs', /* @__PURE__ */ new SQSClient({ logger: sdkLogger }));

/** The logical queues the service's code sends to (functions/workers.ts defines every queue). */
export const QUEUE_NAMES = [
  'send',
  'send-bulk',
  'send-test',
  'attachment-fetch',
  'webhook-delivery',
  'broadcast-fanout',
  'contact-imports',
  'ses-events',
  'ses-suppression',
  'inbound',
  'automation-steps',
  'automation-events',
  'inbox-index',
] as const;
export type QueueName = (typeof QUEUE_NAMES)[number];

/**
 * The environment variable that holds a queue's URL (`QUEUE_URL_SEND`). The same rule as
 * `queueUrlVariable` of functions/workers.ts, by which the stack and the local runtime set it;
 * repeated here because shared/ does not import functions/ (test/unit/queues.test.ts checks
 * that the two agree).
 */
export const queueUrlVariable = (name: string) => `QUEUE_URL_${name.toUpperCase().replace(/[^A-Z0-9]/g, '_')}`;

/** Entries per SendMessageBatch request (SQS's limit). */
export const MAX_BATCH_ENTRIES = 10;
/** Bytes of message bodies per SendMessageBatch request (SQS's limit for the whole request: 256 KiB). */
export const MAX_BATCH_BYTES = 256 * 1024;
/** SQS keeps a received message invisible for at most 12 hours. */
export const MAX_VISIBILITY_SECONDS = 12 * 60 * 60;
/** SQS delays a message's first delivery by at most 15 minutes. */
export const MAX_DELAY_SECONDS = 15 * 60;

/**
 * `items` in order, cut into requests of at most MAX_BATCH_ENTRIES items and MAX_BATCH_BYTES of
 * `bytes(item)`; an item larger than MAX_BATCH_BYTES alone goes in a request of its own (SQS
 * refuses that one).
 */
export function requestBatches<T>(items: readonly T[], bytes: (item: T) => number): T[][] {
  const batches: T[][] = [];
  let current: T[] = [];
  let size = 0;
  for (const item of items) {
    const itemBytes = bytes(item);
    if (current.length === MAX_BATCH_ENTRIES || (current.length > 0 && size + itemBytes > MAX_BATCH_BYTES)) {
      batches.push(current);
      current = [];
      size = 0;
    }
    current.push(item);
    size += itemBytes;
  }
  if (current.length > 0) batches.push(current);
  return batches;
}

export interface Queue<M, Refused> {
  readonly name: QueueName;
  /** Sends the messages (see the module comment for batching and for what `Refused` is). */
  enqueue(messages: readonly M[]): Promise<Refused>;
  /** Makes a received message come back after `seconds` (at least 1, capped at SQS's 12 hours). */
  delay(receiptHandle: string, seconds: number): Promise<void>;
  /** Messages waiting (ApproximateNumberOfMessages). */
  backlog(): Promise<number>;
}

function queueUrl(name: QueueName): string {
  const variable = queueUrlVariable(name);
  const url = process.env[variable];
  if (!url) throw new Error(`${variable} is not set`);
  return url;
}

interface Entry<M> {
  message: M;
  body: string;
  group?: string;
  delay?: number;
}

/** One request; resolves with the messages SQS refused and its first reason, rejects when the request fails. */
async function sendBatch<M>(QueueUrl: string, batch: Entry<M>[]): Promise<{ refused: M[]; reason?: string }> {
  const entries = batch.map((entry, i) => ({
    Id: String(i),
    MessageBody: entry.body,
    ...(entry.group ? { MessageGroupId: entry.group } : {}),
    ...(entry.delay ? { DelaySeconds: entry.delay } : {}),
  }));
  const out = await sqs.send(new SendMessageBatchCommand({ QueueUrl, Entries: entries }));
  const failed = out.Failed ?? [];
  return { refused: failed.map((f) => batch[Number(f.Id)].message), reason: failed[0]?.Message };
}

/** Per message: its MessageGroupId (`group`) and DelaySeconds (`delaySeconds`, capped at SQS's 15 minutes). */
export interface QueueOptions<M> {
  group?: (message: M) => string;
  delaySeconds?: (message: M) => number;
}

/** The typed queue `name`; `onRefused` says what `enqueue` does with messages SQS does not take. */
export function queue<M>(name: QueueName, onRefused: 'throw', options?: QueueOptions<M>): Queue<M, void>;
export function queue<M>(name: QueueName, onRefused: 'return', options?: QueueOptions<M>): Queue<M, M[]>;
export function queue<M>(
  name: QueueName,
  onRefused: 'throw' | 'return',
  options: QueueOptions<M> = {},
): Queue<M, void> | Queue<M, M[]> {
  const delayOf = (message: M) =>
    options.delaySeconds ? Math.max(0, Math.min(MAX_DELAY_SECONDS, Math.round(options.delaySeconds(message)))) : 0;
  const batches = (messages: readonly M[]) =>
    requestBatches(
      messages.map(
        (message): Entry<M> => ({
          message,
          body: JSON.stringify(message),
          group: options.group?.(message),
          delay: delayOf(message),
        }),
      ),
      (entry) => Buffer.byteLength(entry.body),
    );
  const backlog = async () => {
    const out = await sqs.send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl(name), AttributeNames: ['ApproximateNumberOfMessages'] }),
    );
    return Number(out.Attributes?.ApproximateNumberOfMessages ?? 0);
  };
  const delay = async (receiptHandle: string, seconds: number) => {
    const VisibilityTimeout = Math.max(1, Math.min(MAX_VISIBILITY_SECONDS, Math.ceil(seconds)));
    await sqs.send(
      new ChangeMessageVisibilityCommand({ QueueUrl: queueUrl(name), ReceiptHandle: receiptHandle, VisibilityTimeout }),
    );
  };
  if (onRefused === 'return') {
    return {
      name,
      delay,
      backlog,
      async enqueue(messages) {
        if (!messages.length) return [];
        const QueueUrl = queueUrl(name);
        const refused = await Promise.all(
          batches(messages).map((batch) =>
            sendBatch(QueueUrl, batch).then(
              (out) => out.refused,
              () => batch.map((entry) => entry.message),
            ),
          ),
        );
        return refused.flat();
      },
    };
  }
  return {
    name,
    delay,
    backlog,
    async enqueue(messages) {
      if (!messages.length) return;
      const QueueUrl = queueUrl(name);
      await Promise.all(
        batches(messages).map(async (batch) => {
          const out = await sendBatch(QueueUrl, batch);
          if (out.refused.length)
            throw new Error(`${name} queue refused ${out.refused.length} messages: ${out.reason}`);
        }),
      );
    },
  };
}
