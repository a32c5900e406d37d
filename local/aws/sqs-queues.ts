/**
 * The state of the local SQS (local/aws/sqs.ts is its protocol front): queues, their messages
 * and move tasks, in memory, each change journaled (local/aws/journal.ts).
 *
 * 1. Every change is a record (`JournalRecord`). `emit` applies it to the state (`apply`, the only
 *    code that changes it) and buffers it; the front calls `flush` before it answers, so what an
 *    answer confirmed is in the journal. At a start the journal's records go through the same
 *    `apply`, so a replayed state is the state that was answered from.
 * 2. Records are small: a send keeps the whole message; a receive only the message id, its new
 *    receipt handle, the epoch ms it becomes visible again and its receive count; a visibility
 *    change, a delete, a move to the dead-letter queue only ids and times. Times are absolute: a
 *    message in flight when the process died comes back at its own deadline after a restart;
 *    delays and receive counts carry on.
 * 3. Each queue keeps its messages by id and a schedule: a heap of (visibleAt, arrival) entries.
 *    A change of visibility pushes a new entry and makes the older one stale (its `version`), so a
 *    receive takes the oldest visible messages without scanning the queue. A long poll waits on
 *    the queue until a message is put there (`wake`) or the schedule's earliest time comes.
 * 4. A receive drops a message past the queue's retention, and moves one already received
 *    maxReceiveCount times to the dead-letter queue (same id and sent time, receive count kept,
 *    DeadLetterQueueSourceArn set) instead of returning it.
 * 5. A move task takes the source's visible messages in steps (`moveStep`), each moved message a
 *    new one in its destination (new id and sent time, receive count 0, as SQS redrives); its
 *    progress is in the `moved` records, its end in a `task` record. One RUNNING at the last
 *    stop goes on after the next start.
 * Kept in memory only: the 60 s windows after PurgeQueue and DeleteQueue.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { Journal } from './journal';

const SECOND_MS = 1000;
/** SQS's limits. */
export const MAX_VISIBILITY_SECONDS = 12 * 60 * 60;
export const MAX_DELAY_SECONDS = 15 * 60;
export const MAX_WAIT_SECONDS = 20;
/** PurgeQueue once per queue in this window; a deleted queue's name is taken again only after it. */
const QUEUE_COOLDOWN_MS = 60 * SECOND_MS;
/** Messages a move task without a rate moves per step, and the pause between steps. */
const MOVE_STEP_MESSAGES = 500;
const MOVE_STEP_MS = 20;
/** Tasks ListMessageMoveTasks keeps per source (SQS: the latest 10). */
export const MOVE_TASKS_KEPT = 10;

// ---------------------------------------------------------------------------------------------
// Errors: SQS's JSON-protocol shapes and their legacy (query) codes, as the SDK's model lists them
// ---------------------------------------------------------------------------------------------

export const ERRORS = {
  QueueDoesNotExist: { query: 'AWS.SimpleQueueService.NonExistentQueue', status: 400 },
  QueueNameExists: { query: 'QueueAlreadyExists', status: 400 },
  QueueDeletedRecently: { query: 'AWS.SimpleQueueService.QueueDeletedRecently', status: 400 },
  PurgeQueueInProgress: { query: 'AWS.SimpleQueueService.PurgeQueueInProgress', status: 403 },
  ReceiptHandleIsInvalid: { query: 'ReceiptHandleIsInvalid', status: 404 },
  MessageNotInflight: { query: 'AWS.SimpleQueueService.MessageNotInflight', status: 400 },
  InvalidAttributeName: { query: 'InvalidAttributeName', status: 400 },
  InvalidAttributeValue: { query: 'InvalidAttributeValue', status: 400 },
  InvalidMessageContents: { query: 'InvalidMessageContents', status: 400 },
  EmptyBatchRequest: { query: 'AWS.SimpleQueueService.EmptyBatchRequest', status: 400 },
  TooManyEntriesInBatchRequest: { query: 'AWS.SimpleQueueService.TooManyEntriesInBatchRequest', status: 400 },
  BatchEntryIdsNotDistinct: { query: 'AWS.SimpleQueueService.BatchEntryIdsNotDistinct', status: 400 },
  InvalidBatchEntryId: { query: 'AWS.SimpleQueueService.InvalidBatchEntryId', status: 400 },
  BatchRequestTooLong: { query: 'AWS.SimpleQueueService.BatchRequestTooLong', status: 400 },
  UnsupportedOperation: { query: 'AWS.SimpleQueueService.UnsupportedOperation', status: 400 },
  ResourceNotFoundException: { query: 'ResourceNotFoundException', status: 404 },
  // not in the service model: SQS answers these as coral's ValidationException / SerializationException
  InvalidParameterValue: {
    query: 'InvalidParameterValue',
    status: 400,
    type: 'com.amazon.coral.validate#ValidationException',
  },
  MissingParameter: { query: 'MissingParameter', status: 400, type: 'com.amazon.coral.validate#ValidationException' },
  SerializationException: {
    query: 'SerializationException',
    status: 400,
    type: 'com.amazon.coral.service#SerializationException',
  },
  RequestEntityTooLarge: {
    query: 'RequestEntityTooLarge',
    status: 413,
    type: 'com.amazon.coral.service#RequestEntityTooLargeException',
  },
  InternalFailure: { query: 'InternalFailure', status: 500, type: 'com.amazon.coral.service#InternalFailure' },
} satisfies Record<string, { query: string; status: number; type?: string }>;
type ErrorName = keyof typeof ERRORS;

export class SqsError extends Error {
  constructor(
    readonly code: ErrorName,
    message: string,
  ) {
    super(message);
  }
  get query(): string {
    return ERRORS[this.code].query;
  }
}

export const invalidParameter = (name: string, value: unknown, reason: string) =>
  new SqsError('InvalidParameterValue', `Value ${String(value)} for parameter ${name} is invalid. Reason: ${reason}`);
export const noQueue = () => new SqsError('QueueDoesNotExist', 'The specified queue does not exist.');
export const wrongType = (name: string, expected: string) =>
  new SqsError('SerializationException', `${name}: expected ${expected}`);

// ---------------------------------------------------------------------------------------------
// State and its journal records
// ---------------------------------------------------------------------------------------------

interface RedrivePolicy {
  deadLetterTargetArn: string;
  maxReceiveCount: number;
}

export interface QueueConfig {
  VisibilityTimeout: number;
  MaximumMessageSize: number;
  DelaySeconds: number;
  MessageRetentionPeriod: number;
  ReceiveMessageWaitTimeSeconds: number;
  RedrivePolicy?: RedrivePolicy;
}

/** SQS's defaults for a new queue (MaximumMessageSize: 1 MiB since 2025). */
const DEFAULT_CONFIG: QueueConfig = {
  VisibilityTimeout: 30,
  MaximumMessageSize: 1_048_576,
  DelaySeconds: 0,
  MessageRetentionPeriod: 345_600,
  ReceiveMessageWaitTimeSeconds: 0,
};
/** The numeric attributes and their ranges (SQS's). */
const NUMERIC_ATTRIBUTES = {
  VisibilityTimeout: [0, MAX_VISIBILITY_SECONDS],
  MaximumMessageSize: [1024, 1_048_576],
  DelaySeconds: [0, MAX_DELAY_SECONDS],
  MessageRetentionPeriod: [60, 1_209_600],
  ReceiveMessageWaitTimeSeconds: [0, MAX_WAIT_SECONDS],
} as const;
/** Attributes SQS has that this stand-in does not serve: named in GetQueueAttributes, left out of the answer. */
const UNSERVED_ATTRIBUTES = new Set([
  'Policy',
  'KmsMasterKeyId',
  'KmsDataKeyReusePeriodSeconds',
  'SqsManagedSseEnabled',
  'RedriveAllowPolicy',
  'FifoQueue',
  'ContentBasedDeduplication',
  'DeduplicationScope',
  'FifoThroughputLimit',
]);

export interface AttributeValue {
  DataType: string;
  StringValue?: string;
  /** base64, as the JSON protocol carries it */
  BinaryValue?: string;
}

/** A message as the journal keeps it. */
interface StoredMessage {
  id: string;
  body: string;
  attributes?: Record<string, AttributeValue>;
  sentAt: number;
  senderId: string;
  groupId?: string;
  traceHeader?: string;
  deadLetterSourceArn?: string;
  receiveCount: number;
  firstReceivedAt?: number;
  /** the latest receive: a visibility may end at most 12 h after it */
  receivedAt?: number;
  /** the latest receipt handle, the only one that deletes or changes visibility */
  receipt?: string;
  /** epoch ms from which the message can be received */
  visibleAt: number;
}

interface Message extends StoredMessage {
  md5Body: string;
  /** order of arrival in its queue (not journaled: replay gives the same order) */
  seq: number;
  /** bumped by every change of visibleAt: heap entries of an older version are stale */
  version: number;
}

interface MoveTask {
  handle: string;
  sourceArn: string;
  destinationArn?: string;
  rate?: number;
  status: 'RUNNING' | 'COMPLETED' | 'FAILED';
  moved: number;
  toMove: number;
  startedAt: number;
  failureReason?: string;
}

/** One change of the state (the journal's line). Times are epoch milliseconds. */
type JournalRecord =
  | { t: 'format'; version: 1 }
  | { t: 'queue'; name: string; config: QueueConfig; created: number; modified: number }
  | { t: 'dropQueue'; name: string }
  | { t: 'purge'; name: string }
  /** a whole message: a send, a snapshot's message */
  | { t: 'message'; q: string; m: StoredMessage }
  | { t: 'receive'; q: string; id: string; receipt: string; visibleAt: number; count: number; at: number }
  | { t: 'visibility'; q: string; id: string; visibleAt: number }
  | { t: 'delete'; q: string; id: string }
  /** moved to the queue's dead-letter queue `to` on a receive, visible there at `visibleAt` */
  | { t: 'dead'; q: string; id: string; to: string; visibleAt: number }
  /** moved by move task `task` to `to`, as the new message `newId` sent at `sentAt` */
  | { t: 'moved'; q: string; id: string; to: string; task: string; newId: string; sentAt: number; visibleAt: number }
  | { t: 'task'; task: MoveTask };

export interface Queue {
  name: string;
  config: QueueConfig;
  /** epoch seconds, as GetQueueAttributes answers them */
  created: number;
  modified: number;
  messages: Map<string, Message>;
  /** every message by (visibleAt, seq); entries of an older version are skipped when popped */
  schedule: Heap;
  /** long polls waiting on this queue */
  waiters: Set<() => void>;
}

interface HeapEntry {
  at: number;
  seq: number;
  id: string;
  version: number;
}

/** A binary min-heap of (at, seq). */
class Heap {
  items: HeapEntry[] = [];
  get size(): number {
    return this.items.length;
  }
  peek(): HeapEntry | undefined {
    return this.items[0];
  }
  push(entry: HeapEntry): void {
    const items = this.items;
    items.push(entry);
    for (let i = items.length - 1; i > 0; ) {
      const parent = (i - 1) >> 1;
      if (!Heap.before(items[i], items[parent])) break;
      [items[i], items[parent]] = [items[parent], items[i]];
      i = parent;
    }
  }
  pop(): HeapEntry | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length > 0 && last) {
      items[0] = last;
      for (let i = 0; ; ) {
        const left = 2 * i + 1;
        const right = left + 1;
        let least = i;
        if (left < items.length && Heap.before(items[left], items[least])) least = left;
        if (right < items.length && Heap.before(items[right], items[least])) least = right;
        if (least === i) break;
        [items[i], items[least]] = [items[least], items[i]];
        i = least;
      }
    }
    return top;
  }
  private static before(a: HeapEntry, b: HeapEntry): boolean {
    return a.at < b.at || (a.at === b.at && a.seq < b.seq);
  }
}

// ---------------------------------------------------------------------------------------------
// Digests, receipt handles, queue attributes
// ---------------------------------------------------------------------------------------------

const md5 = (data: Buffer | string) => createHash('md5').update(data).digest('hex');

/**
 * SQS's MD5OfMessageAttributes: names sorted; for each, its name, data type, a transport byte (1
 * String/Number, 2 Binary) and its value, every part but the byte preceded by its length (4 bytes,
 * big-endian).
 */
function md5OfAttributes(attributes: Record<string, AttributeValue>): string {
  const parts: Buffer[] = [];
  const prefixed = (bytes: Buffer) => {
    const length = Buffer.alloc(4);
    length.writeUInt32BE(bytes.length);
    parts.push(length, bytes);
  };
  for (const name of Object.keys(attributes).sort()) {
    const { DataType, StringValue, BinaryValue } = attributes[name];
    prefixed(Buffer.from(name, 'utf8'));
    prefixed(Buffer.from(DataType, 'utf8'));
    const binary = DataType.startsWith('Binary');
    parts.push(Buffer.from([binary ? 2 : 1]));
    prefixed(binary ? Buffer.from(BinaryValue ?? '', 'base64') : Buffer.from(StringValue ?? '', 'utf8'));
  }
  return md5(Buffer.concat(parts));
}

const QUEUE_NAME = /^[A-Za-z0-9_-]{1,80}$/;

const tooLong = (queue: Queue) =>
  new SqsError(
    'InvalidParameterValue',
    `One or more parameters are invalid. Reason: Message must be shorter than ${queue.config.MaximumMessageSize} bytes.`,
  );

function parseRedrivePolicy(
  value: string,
  arnOf: (name: string) => string,
  exists: (arn: string) => boolean,
  queueName: string,
): RedrivePolicy | undefined {
  if (value === '') return undefined;
  const refuse = (reason: string) => invalidParameter('RedrivePolicy', value, reason);
  let parsed: unknown;
  try {
    parsed = JSON.parse(value);
  } catch {
    throw refuse('Redrive policy is not a valid JSON map.');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw refuse('Redrive policy is not a valid JSON map.');
  const { deadLetterTargetArn, maxReceiveCount, ...rest } = parsed as Record<string, unknown>;
  if (Object.keys(rest).length > 0) throw refuse(`Unknown attribute ${Object.keys(rest)[0]}.`);
  if (typeof deadLetterTargetArn !== 'string') throw refuse('Redrive policy must contain deadLetterTargetArn.');
  const count = Number(maxReceiveCount);
  if (!Number.isInteger(count) || count < 1 || count > 1000)
    throw refuse(
      `Invalid value for maxReceiveCount: ${String(maxReceiveCount)}, valid values are from 1 to 1000 both inclusive.`,
    );
  if (!exists(deadLetterTargetArn)) throw refuse('Dead letter target does not exist.');
  if (deadLetterTargetArn === arnOf(queueName)) throw refuse('A queue cannot be its own dead letter target.');
  return { deadLetterTargetArn, maxReceiveCount: count };
}

const sameConfigValue = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** A receipt handle carries its message's id; the rest is random, so each receive gets a new one. */
const newReceipt = (messageId: string) =>
  Buffer.from(`${messageId}:${randomBytes(24).toString('base64url')}`).toString('base64');
const RECEIPT = /^([0-9a-f-]{36}):[A-Za-z0-9_-]{32}$/;
function messageIdOf(handle: string): string {
  const id = RECEIPT.exec(Buffer.from(handle, 'base64').toString('utf8'))?.[1];
  if (!id)
    throw new SqsError('ReceiptHandleIsInvalid', `The input receipt handle "${handle}" is not a valid receipt handle.`);
  return id;
}

/** One message to send (SendMessage, or an entry of SendMessageBatch), checked against its queue. */
export interface Outgoing {
  body: string;
  bytes: number;
  delaySeconds: number;
  attributes?: Record<string, AttributeValue>;
  groupId?: string;
  traceHeader?: string;
}

// ---------------------------------------------------------------------------------------------
// The state
// ---------------------------------------------------------------------------------------------

export interface ReceiveRequest {
  max: number;
  visibilitySeconds?: number;
  waitSeconds?: number;
  systemAttributes: string[];
  messageAttributes: string[];
}

export class SqsQueues {
  /** `http://<host>:<port>` of the front, set once it listens (queue URLs start with it) */
  baseUrl = '';
  private readonly queues = new Map<string, Queue>();
  /** per source queue name, newest first */
  private readonly tasks = new Map<string, MoveTask[]>();
  private readonly taskTimers = new Map<string, NodeJS.Timeout>();
  private readonly purgedAt = new Map<string, number>();
  private readonly deletedAt = new Map<string, number>();
  /** every waiting long poll, ended at close */
  private readonly polls = new Set<() => void>();
  private readonly journal: Journal<JournalRecord>;
  private seq = 0;
  private closed = false;

  constructor(
    private readonly region: string,
    readonly accountId: string,
    dir: string | undefined,
    compactAtBytes: number | undefined,
    /** the runtime's clock (local/clock.ts): when messages become visible, timestamps */
    private readonly clock: { now: () => number; manual: boolean } = { now: Date.now, manual: false },
  ) {
    this.journal = new Journal<JournalRecord>({
      dir,
      apply: (record) => this.apply(record),
      snapshot: () => this.snapshot(),
      compactAtBytes,
    });
    for (const queue of this.queues.values()) this.rebuildSchedule(queue);
  }

  // --- names ---------------------------------------------------------------------------------

  arnOf(name: string): string {
    return `arn:aws:sqs:${this.region}:${this.accountId}:${name}`;
  }
  urlOf(name: string): string {
    return `${this.baseUrl}/${this.accountId}/${name}`;
  }
  queueByUrl(url: string): Queue {
    const name = url.split('?')[0].replace(/\/+$/, '').split('/').pop() ?? '';
    const queue = this.queues.get(name);
    if (!queue) throw noQueue();
    return queue;
  }
  queueByArn(arn: string | undefined): Queue | undefined {
    const prefix = this.arnOf('');
    return arn?.startsWith(prefix) ? this.queues.get(arn.slice(prefix.length)) : undefined;
  }

  // --- the journal: every change is a record, applied and journaled ---------------------------

  /** Applies a change and buffers it for the journal; `flush` writes it before the answer. */
  private emit(record: JournalRecord): void {
    this.apply(record);
    this.journal.record(record);
  }

  flush(): void {
    this.journal.flush();
  }

  private apply(record: JournalRecord): void {
    switch (record.t) {
      case 'format':
        if (record.version !== 1) throw new Error(`SQS journal format ${record.version} is not known to this version`);
        return;
      case 'queue': {
        const queue = this.queues.get(record.name);
        if (queue) Object.assign(queue, { config: record.config, modified: record.modified });
        else
          this.queues.set(record.name, {
            name: record.name,
            config: record.config,
            created: record.created,
            modified: record.modified,
            messages: new Map(),
            schedule: new Heap(),
            waiters: new Set(),
          });
        return;
      }
      case 'dropQueue': {
        const queue = this.queues.get(record.name);
        this.queues.delete(record.name);
        this.tasks.delete(record.name);
        if (queue) this.wake(queue);
        return;
      }
      case 'purge': {
        const queue = this.queues.get(record.name);
        if (queue) Object.assign(queue, { messages: new Map(), schedule: new Heap() });
        return;
      }
      case 'message': {
        const queue = this.queues.get(record.q);
        if (queue) this.insert(queue, record.m);
        return;
      }
      case 'receive': {
        const message = this.queues.get(record.q)?.messages.get(record.id);
        if (!message) return;
        Object.assign(message, { receipt: record.receipt, receiveCount: record.count, receivedAt: record.at });
        message.firstReceivedAt ??= record.at;
        this.reschedule(this.queues.get(record.q)!, message, record.visibleAt);
        return;
      }
      case 'visibility': {
        const queue = this.queues.get(record.q);
        const message = queue?.messages.get(record.id);
        if (queue && message) this.reschedule(queue, message, record.visibleAt);
        return;
      }
      case 'delete':
        this.queues.get(record.q)?.messages.delete(record.id);
        return;
      case 'dead': {
        const message = this.take(record.q, record.id);
        const target = this.queues.get(record.to);
        if (message && target)
          this.insert(target, {
            ...message,
            deadLetterSourceArn: this.arnOf(record.q),
            receipt: undefined,
            visibleAt: record.visibleAt,
          });
        return;
      }
      case 'moved': {
        const message = this.take(record.q, record.id);
        const target = this.queues.get(record.to);
        if (message && target) {
          const {
            id: _id,
            deadLetterSourceArn: _source,
            receipt: _receipt,
            firstReceivedAt: _first,
            receivedAt: _received,
            ...kept
          } = message;
          this.insert(target, {
            ...kept,
            id: record.newId,
            sentAt: record.sentAt,
            receiveCount: 0,
            visibleAt: record.visibleAt,
          });
        }
        const task = this.findTask(record.task);
        if (task) task.moved += 1;
        return;
      }
      case 'task': {
        const source = this.queueByArn(record.task.sourceArn)?.name ?? record.task.sourceArn;
        const list = this.tasks.get(source) ?? [];
        const at = list.findIndex((task) => task.handle === record.task.handle);
        if (at >= 0) list[at] = { ...record.task };
        else list.unshift({ ...record.task });
        this.tasks.set(source, list.slice(0, MOVE_TASKS_KEPT));
        return;
      }
    }
  }

  /** Records that rebuild the whole state from nothing (the journal's compaction). */
  private *snapshot(): Iterable<JournalRecord> {
    yield { t: 'format', version: 1 };
    const now = this.clock.now();
    for (const queue of this.queues.values()) {
      yield { t: 'queue', name: queue.name, config: queue.config, created: queue.created, modified: queue.modified };
    }
    for (const queue of this.queues.values()) {
      for (const message of queue.messages.values()) {
        if (this.expired(queue, message, now)) continue;
        const { md5Body: _md5, seq: _seq, version: _version, ...stored } = message;
        yield { t: 'message', q: queue.name, m: stored };
      }
    }
    for (const list of this.tasks.values()) for (const task of [...list].reverse()) yield { t: 'task', task };
  }

  private insert(queue: Queue, stored: StoredMessage): void {
    const message: Message = { ...stored, md5Body: md5(stored.body), seq: this.seq++, version: 0 };
    queue.messages.set(message.id, message);
    queue.schedule.push({ at: message.visibleAt, seq: message.seq, id: message.id, version: 0 });
    this.wake(queue);
  }

  private take(queueName: string, id: string): Message | undefined {
    const queue = this.queues.get(queueName);
    const message = queue?.messages.get(id);
    queue?.messages.delete(id);
    return message;
  }

  private reschedule(queue: Queue, message: Message, visibleAt: number): void {
    message.visibleAt = visibleAt;
    message.version += 1;
    queue.schedule.push({ at: visibleAt, seq: message.seq, id: message.id, version: message.version });
    this.wake(queue);
  }

  private rebuildSchedule(queue: Queue): void {
    queue.schedule = new Heap();
    for (const message of queue.messages.values())
      queue.schedule.push({ at: message.visibleAt, seq: message.seq, id: message.id, version: message.version });
  }

  private expired(queue: Queue, message: StoredMessage, now: number): boolean {
    return message.sentAt + queue.config.MessageRetentionPeriod * SECOND_MS <= now;
  }

  /**
   * The next visible message of the queue, its schedule entry removed: the caller changes it (which
   * schedules it again) or puts it back (`putBack`). Drops messages past the queue's retention.
   */
  private nextVisible(queue: Queue, now: number): Message | undefined {
    if (queue.schedule.size > 2 * queue.messages.size + 1024) this.rebuildSchedule(queue); // stale entries of deleted messages
    for (let top = queue.schedule.peek(); top && top.at <= now; top = queue.schedule.peek()) {
      queue.schedule.pop();
      const message = queue.messages.get(top.id);
      if (!message || message.version !== top.version) continue;
      if (this.expired(queue, message, now)) {
        this.emit({ t: 'delete', q: queue.name, id: message.id });
        continue;
      }
      return message;
    }
    return undefined;
  }

  private putBack(queue: Queue, message: Message): void {
    queue.schedule.push({ at: message.visibleAt, seq: message.seq, id: message.id, version: message.version });
  }

  /**
   * Long polls of the queue look again: a message is visible now, or one was scheduled that may be
   * visible before the time a poll sleeps until (a delayed message into an empty queue: without
   * this, a poll already waiting slept to its deadline, up to 20 s past the delay).
   */
  private wake(queue: Queue): void {
    for (const waiter of [...queue.waiters]) waiter();
  }

  /** A queue's messages visible by `before` (epoch ms) and after it; none for a queue that does not exist. */
  backlog(queueName: string, before: number): { due: number; later: number } {
    const queue = this.queues.get(queueName);
    let due = 0;
    let later = 0;
    for (const message of queue?.messages.values() ?? []) {
      if (message.visibleAt <= before) due++;
      else later++;
    }
    return { due, later };
  }

  // --- queues --------------------------------------------------------------------------------

  createQueue(name: string, rawAttributes: Record<string, unknown>): string {
    if (!QUEUE_NAME.test(name)) {
      const fifo = name.endsWith('.fifo') ? ' (this local SQS has standard queues only)' : '';
      throw invalidParameter(
        'QueueName',
        name,
        `Can only include alphanumeric characters, hyphens, or underscores. 1 to 80 in length${fifo}`,
      );
    }
    const given = this.queueAttributes(name, rawAttributes);
    const existing = this.queues.get(name);
    const now = this.clock.now();
    if (existing) {
      const different = Object.keys(given).find(
        (key) => !sameConfigValue(given[key as keyof QueueConfig], existing.config[key as keyof QueueConfig]),
      );
      if (different)
        throw new SqsError(
          'QueueNameExists',
          `A queue already exists with the same name and a different value for attribute ${different}`,
        );
      return this.urlOf(name);
    }
    const deletedAt = this.deletedAt.get(name);
    if (deletedAt !== undefined && now - deletedAt < QUEUE_COOLDOWN_MS)
      throw new SqsError(
        'QueueDeletedRecently',
        'You must wait 60 seconds after deleting a queue before you can create another with the same name.',
      );
    const seconds = Math.floor(now / SECOND_MS);
    this.emit({ t: 'queue', name, config: { ...DEFAULT_CONFIG, ...given }, created: seconds, modified: seconds });
    return this.urlOf(name);
  }

  setQueueAttributes(queue: Queue, rawAttributes: Record<string, unknown>): void {
    const given = this.queueAttributes(queue.name, rawAttributes);
    const config = { ...queue.config, ...given };
    if ('RedrivePolicy' in given && given.RedrivePolicy === undefined) delete config.RedrivePolicy;
    this.emit({
      t: 'queue',
      name: queue.name,
      config,
      created: queue.created,
      modified: Math.floor(this.clock.now() / SECOND_MS),
    });
  }

  /** CreateQueue's and SetQueueAttributes' attributes, checked as SQS checks them. */
  private queueAttributes(queueName: string, raw: Record<string, unknown>): Partial<QueueConfig> {
    const config: Partial<QueueConfig> = {};
    for (const [name, value] of Object.entries(raw)) {
      if (typeof value !== 'string') throw wrongType(`Attributes.${name}`, 'a string');
      if (name in NUMERIC_ATTRIBUTES) {
        const [min, max] = NUMERIC_ATTRIBUTES[name as keyof typeof NUMERIC_ATTRIBUTES];
        const number = Number(value);
        if (!/^\d+$/.test(value) || number < min || number > max)
          throw new SqsError('InvalidAttributeValue', `Invalid value for the parameter ${name}.`);
        config[name as keyof typeof NUMERIC_ATTRIBUTES] = number;
      } else if (name === 'RedrivePolicy') {
        config.RedrivePolicy = parseRedrivePolicy(
          value,
          (n) => this.arnOf(n),
          (arn) => this.queueByArn(arn) !== undefined,
          queueName,
        );
      } else if (name === 'FifoQueue') {
        throw new SqsError('InvalidAttributeValue', 'This local SQS has standard queues only (FifoQueue).');
      } else {
        throw new SqsError(
          'InvalidAttributeName',
          `Unknown Attribute ${name}. This local SQS serves ${[...Object.keys(NUMERIC_ATTRIBUTES), 'RedrivePolicy'].join(', ')}.`,
        );
      }
    }
    return config;
  }

  getQueueAttributes(queue: Queue, names: string[]): Record<string, string> {
    const all = names.includes('All');
    const counts = this.counts(queue, this.clock.now());
    const values: Record<string, string | undefined> = {
      QueueArn: this.arnOf(queue.name),
      ...Object.fromEntries(
        Object.keys(NUMERIC_ATTRIBUTES).map((name) => [
          name,
          String(queue.config[name as keyof typeof NUMERIC_ATTRIBUTES]),
        ]),
      ),
      RedrivePolicy: queue.config.RedrivePolicy && JSON.stringify(queue.config.RedrivePolicy),
      ApproximateNumberOfMessages: String(counts.visible),
      ApproximateNumberOfMessagesNotVisible: String(counts.inFlight),
      ApproximateNumberOfMessagesDelayed: String(counts.delayed),
      CreatedTimestamp: String(queue.created),
      LastModifiedTimestamp: String(queue.modified),
    };
    const answer: Record<string, string> = {};
    for (const name of all ? Object.keys(values) : names) {
      if (!(name in values) && !UNSERVED_ATTRIBUTES.has(name))
        throw new SqsError('InvalidAttributeName', `Unknown Attribute ${name}.`);
      if (values[name] !== undefined) answer[name] = values[name];
    }
    return answer;
  }

  private counts(queue: Queue, now: number): { visible: number; inFlight: number; delayed: number } {
    const counts = { visible: 0, inFlight: 0, delayed: 0 };
    for (const message of queue.messages.values()) {
      if (this.expired(queue, message, now)) continue;
      if (message.visibleAt <= now) counts.visible += 1;
      else if (message.receiveCount > 0) counts.inFlight += 1;
      else counts.delayed += 1;
    }
    return counts;
  }

  getQueueUrl(name: string): string {
    if (!this.queues.has(name)) throw noQueue();
    return this.urlOf(name);
  }

  listQueues(
    prefix: string | undefined,
    maxResults: number | undefined,
    nextToken: string | undefined,
  ): { QueueUrls?: string[]; NextToken?: string } {
    const after = nextToken ? Buffer.from(nextToken, 'base64url').toString('utf8') : '';
    const names = [...this.queues.keys()].filter((name) => name.startsWith(prefix ?? '') && name > after).sort();
    const page = names.slice(0, maxResults ?? 1000);
    if (page.length === 0) return {};
    const more = page.length < names.length;
    return {
      QueueUrls: page.map((name) => this.urlOf(name)),
      ...(more ? { NextToken: Buffer.from(page[page.length - 1]).toString('base64url') } : {}),
    };
  }

  deleteQueue(queue: Queue): void {
    this.stopTasks(queue.name);
    this.emit({ t: 'dropQueue', name: queue.name });
    this.deletedAt.set(queue.name, this.clock.now());
  }

  purgeQueue(queue: Queue): void {
    const now = this.clock.now();
    const last = this.purgedAt.get(queue.name);
    if (last !== undefined && now - last < QUEUE_COOLDOWN_MS)
      throw new SqsError(
        'PurgeQueueInProgress',
        `Only one PurgeQueue operation on ${queue.name} is allowed every 60 seconds.`,
      );
    this.purgedAt.set(queue.name, now);
    this.emit({ t: 'purge', name: queue.name });
  }

  // --- messages ------------------------------------------------------------------------------

  send(queue: Queue, message: Outgoing, senderId: string): Record<string, string> {
    if (message.bytes > queue.config.MaximumMessageSize) throw tooLong(queue);
    const now = this.clock.now();
    const id = randomUUID();
    const stored: StoredMessage = {
      id,
      body: message.body,
      sentAt: now,
      senderId,
      receiveCount: 0,
      visibleAt: now + message.delaySeconds * SECOND_MS,
    };
    if (message.attributes) stored.attributes = message.attributes;
    if (message.groupId !== undefined) stored.groupId = message.groupId;
    if (message.traceHeader !== undefined) stored.traceHeader = message.traceHeader;
    this.emit({ t: 'message', q: queue.name, m: stored });
    return {
      MessageId: id,
      MD5OfMessageBody: md5(message.body),
      ...(message.attributes ? { MD5OfMessageAttributes: md5OfAttributes(message.attributes) } : {}),
      ...(message.traceHeader !== undefined
        ? {
            MD5OfMessageSystemAttributes: md5OfAttributes({
              AWSTraceHeader: { DataType: 'String', StringValue: message.traceHeader },
            }),
          }
        : {}),
    };
  }

  /**
   * Step 3 of the module comment: waits up to the poll's time for visible messages, then receives
   * them. The poll's wait is the machine's time; when a message becomes visible is the clock's (a
   * manual clock wakes the polls when it moves: `tick`).
   */
  async receive(queueName: string, request: ReceiveRequest, gone: () => boolean): Promise<Record<string, unknown>[]> {
    const waitMs =
      (request.waitSeconds ?? this.queues.get(queueName)?.config.ReceiveMessageWaitTimeSeconds ?? 0) * SECOND_MS;
    const deadline = Date.now() + waitMs; // machine time: how long the request is held
    for (;;) {
      const queue = this.queues.get(queueName);
      if (!queue) throw noQueue();
      if (this.closed || gone()) return [];
      const received = this.receiveNow(queue, request);
      const machineNow = Date.now();
      if (received.length > 0 || machineNow >= deadline) return received;
      // until a message may be visible: one arrives (`wake`), the clock moves (`tick`), or the earliest scheduled time comes
      const untilVisible = this.clock.manual
        ? Number.POSITIVE_INFINITY
        : (queue.schedule.peek()?.at ?? Number.POSITIVE_INFINITY) - Date.now();
      await new Promise<void>((resolve) => {
        const done = () => {
          clearTimeout(timer);
          queue.waiters.delete(done);
          this.polls.delete(done);
          resolve();
        };
        const timer = setTimeout(done, Math.max(1, Math.min(deadline - machineNow, untilVisible)));
        queue.waiters.add(done);
        this.polls.add(done);
      });
    }
  }

  /** The clock moved (a manual clock): every long poll looks again. */
  tick(): void {
    for (const queue of this.queues.values()) this.wake(queue);
  }

  /** The earliest time after `now` a message becomes visible, in any queue (the manual clock stops there). */
  nextDue(now: number): number | undefined {
    let next: number | undefined;
    for (const queue of this.queues.values()) {
      for (const message of queue.messages.values())
        if (message.visibleAt > now && (next === undefined || message.visibleAt < next)) next = message.visibleAt;
    }
    return next;
  }

  private receiveNow(queue: Queue, request: ReceiveRequest): Record<string, unknown>[] {
    const now = this.clock.now();
    const redrive = queue.config.RedrivePolicy;
    const deadLetterQueue = this.queueByArn(redrive?.deadLetterTargetArn);
    const picked: Message[] = [];
    while (picked.length < request.max) {
      const message = this.nextVisible(queue, now);
      if (!message) break;
      if (redrive && deadLetterQueue && deadLetterQueue !== queue && message.receiveCount >= redrive.maxReceiveCount) {
        this.emit({ t: 'dead', q: queue.name, id: message.id, to: deadLetterQueue.name, visibleAt: now });
        continue;
      }
      picked.push(message);
    }
    const visibleAt = now + (request.visibilitySeconds ?? queue.config.VisibilityTimeout) * SECOND_MS;
    return picked.map((message) => {
      this.emit({
        t: 'receive',
        q: queue.name,
        id: message.id,
        receipt: newReceipt(message.id),
        visibleAt,
        count: message.receiveCount + 1,
        at: now,
      });
      return this.shape(message, request);
    });
  }

  /** A received message as ReceiveMessage answers it, with the system and message attributes asked for. */
  private shape(message: Message, request: ReceiveRequest): Record<string, unknown> {
    const system: Record<string, string | undefined> = {
      SenderId: message.senderId,
      SentTimestamp: String(message.sentAt),
      ApproximateReceiveCount: String(message.receiveCount),
      ApproximateFirstReceiveTimestamp: String(message.firstReceivedAt ?? message.receivedAt ?? ''),
      MessageGroupId: message.groupId,
      DeadLetterQueueSourceArn: message.deadLetterSourceArn,
      AWSTraceHeader: message.traceHeader,
    };
    const allSystem = request.systemAttributes.includes('All');
    const attributes = Object.fromEntries(
      Object.entries(system).filter(
        ([name, value]) => value !== undefined && (allSystem || request.systemAttributes.includes(name)),
      ),
    );
    const wanted = (name: string) =>
      request.messageAttributes.some(
        (pattern) =>
          pattern === 'All' ||
          pattern === '.*' ||
          pattern === name ||
          (pattern.endsWith('.*') && name.startsWith(pattern.slice(0, -1))),
      );
    const userAttributes = Object.fromEntries(
      Object.entries(message.attributes ?? {}).filter(([name]) => wanted(name)),
    );
    const hasUser = Object.keys(userAttributes).length > 0;
    return {
      MessageId: message.id,
      ReceiptHandle: message.receipt,
      MD5OfBody: message.md5Body,
      Body: message.body,
      ...(Object.keys(attributes).length > 0 ? { Attributes: attributes } : {}),
      ...(hasUser
        ? { MD5OfMessageAttributes: md5OfAttributes(userAttributes), MessageAttributes: userAttributes }
        : {}),
    };
  }

  /** DeleteMessage: only the latest receipt handle deletes; an older one succeeds and deletes nothing. */
  deleteMessage(queue: Queue, handle: string): void {
    const message = queue.messages.get(messageIdOf(handle));
    if (message && message.receipt === handle) this.emit({ t: 'delete', q: queue.name, id: message.id });
  }

  changeVisibility(queue: Queue, handle: string, seconds: number): void {
    const message = queue.messages.get(messageIdOf(handle));
    if (!message || message.receipt !== handle)
      throw new SqsError(
        'ReceiptHandleIsInvalid',
        `The receipt handle "${handle}" is not the latest of a message in this queue: the message was received again, deleted or moved.`,
      );
    const now = this.clock.now();
    if (message.visibleAt <= now)
      throw new SqsError(
        'MessageNotInflight',
        'The message referred to is not in flight: its visibility timeout has run out.',
      );
    const visibleAt = now + seconds * SECOND_MS;
    if (visibleAt - (message.receivedAt ?? now) > MAX_VISIBILITY_SECONDS * SECOND_MS) {
      throw invalidParameter(
        'VisibilityTimeout',
        seconds,
        `Total VisibilityTimeout for the message is beyond the limit [${MAX_VISIBILITY_SECONDS} seconds]`,
      );
    }
    this.emit({ t: 'visibility', q: queue.name, id: message.id, visibleAt });
  }

  // --- move tasks ----------------------------------------------------------------------------

  startMoveTask(sourceArn: string, destinationArn: string | undefined, rate: number | undefined): string {
    const source = this.queueByArn(sourceArn);
    if (!source)
      throw new SqsError(
        'ResourceNotFoundException',
        "The resource that you specified for the SourceArn parameter doesn't exist.",
      );
    const isDeadLetterQueue = [...this.queues.values()].some(
      (queue) => queue.config.RedrivePolicy?.deadLetterTargetArn === sourceArn,
    );
    if (!isDeadLetterQueue)
      throw invalidParameter('SourceArn', sourceArn, 'Source queue must be configured as a Dead Letter Queue.');
    if (destinationArn !== undefined && !this.queueByArn(destinationArn))
      throw new SqsError(
        'ResourceNotFoundException',
        "The resource that you specified for the DestinationArn parameter doesn't exist.",
      );
    if (destinationArn === sourceArn)
      throw invalidParameter('DestinationArn', destinationArn, 'The source and destination queues must differ.');
    if ((this.tasks.get(source.name) ?? []).some((task) => task.status === 'RUNNING')) {
      throw invalidParameter(
        'SourceArn',
        sourceArn,
        'There is already a task running. Only one active task is allowed for a source queue arn at a given time.',
      );
    }
    const handle = Buffer.from(JSON.stringify({ taskId: randomUUID(), sourceArn })).toString('base64');
    const task: MoveTask = {
      handle,
      sourceArn,
      status: 'RUNNING',
      moved: 0,
      toMove: this.counts(source, this.clock.now()).visible,
      startedAt: this.clock.now(),
    };
    if (destinationArn !== undefined) task.destinationArn = destinationArn;
    if (rate !== undefined) task.rate = rate;
    this.emit({ t: 'task', task });
    this.scheduleTask(task, 0);
    return handle;
  }

  listMoveTasks(sourceArn: string, max: number): Record<string, unknown>[] {
    const source = this.queueByArn(sourceArn);
    if (!source)
      throw new SqsError(
        'ResourceNotFoundException',
        "The resource that you specified for the SourceArn parameter doesn't exist.",
      );
    return (this.tasks.get(source.name) ?? []).slice(0, max).map((task) => ({
      ...(task.status === 'RUNNING' ? { TaskHandle: task.handle } : {}),
      Status: task.status,
      SourceArn: task.sourceArn,
      ...(task.destinationArn ? { DestinationArn: task.destinationArn } : {}),
      ...(task.rate ? { MaxNumberOfMessagesPerSecond: task.rate } : {}),
      ApproximateNumberOfMessagesMoved: task.moved,
      ApproximateNumberOfMessagesToMove: task.toMove,
      ...(task.failureReason ? { FailureReason: task.failureReason } : {}),
      StartedTimestamp: task.startedAt,
    }));
  }

  /** Tasks RUNNING when the last process ended go on. */
  resumeTasks(): void {
    for (const list of this.tasks.values())
      for (const task of list) if (task.status === 'RUNNING') this.scheduleTask(task, 0);
  }

  private findTask(handle: string): MoveTask | undefined {
    for (const list of this.tasks.values()) for (const task of list) if (task.handle === handle) return task;
    return undefined;
  }

  private scheduleTask(task: MoveTask, delayMs: number): void {
    const timer = setTimeout(() => {
      this.taskTimers.delete(task.handle);
      if (this.closed) return;
      this.moveStep(task);
      this.flush();
    }, delayMs);
    timer.unref();
    this.taskTimers.set(task.handle, timer);
  }

  private stopTasks(sourceName: string): void {
    for (const task of this.tasks.get(sourceName) ?? []) {
      clearTimeout(this.taskTimers.get(task.handle));
      this.taskTimers.delete(task.handle);
    }
  }

  /** One step of a move task; it ends there, or goes on a moment (a second, with a rate) later. */
  private moveStep(scheduled: MoveTask): void {
    const task = this.findTask(scheduled.handle); // the current record of the task (each 'task' record replaces it)
    if (!task || task.status !== 'RUNNING') return;
    const ended = this.moveSome(task);
    if (ended) this.emit({ t: 'task', task: { ...task, ...ended } });
    else this.scheduleTask(task, task.rate ? SECOND_MS : MOVE_STEP_MS);
  }

  /** Moves up to MOVE_STEP_MESSAGES (or the task's rate) of the source's visible messages; answers how the task ended, if it did. */
  private moveSome(task: MoveTask): Pick<MoveTask, 'status' | 'failureReason'> | undefined {
    const source = this.queueByArn(task.sourceArn);
    if (!source) return { status: 'FAILED', failureReason: 'AWS.SimpleQueueService.NonExistentQueue' };
    const now = this.clock.now();
    for (let step = 0; step < (task.rate ?? MOVE_STEP_MESSAGES) && task.moved < task.toMove; step += 1) {
      const message = this.nextVisible(source, now);
      if (!message) return { status: 'COMPLETED' }; // the rest is in flight, or gone
      const targetArn = task.destinationArn ?? message.deadLetterSourceArn;
      const target = this.queueByArn(targetArn);
      if (!target) {
        this.putBack(source, message);
        return {
          status: 'FAILED',
          failureReason: targetArn ? 'AWS.SimpleQueueService.NonExistentQueue' : 'CouldNotDetermineMessageSource',
        };
      }
      const visibleAt = now + target.config.DelaySeconds * SECOND_MS;
      this.emit({
        t: 'moved',
        q: source.name,
        id: message.id,
        to: target.name,
        task: task.handle,
        newId: randomUUID(),
        sentAt: now,
        visibleAt,
      });
    }
    return task.moved >= task.toMove ? { status: 'COMPLETED' } : undefined;
  }

  close(): void {
    this.closed = true;
    for (const timer of this.taskTimers.values()) clearTimeout(timer);
    this.taskTimers.clear();
    for (const poll of [...this.polls]) poll();
    this.journal.close();
  }
}
