/**
 * The local stand-in for SQS: standard queues over SQS's JSON protocol (what @aws-sdk/client-sqs
 * speaks: `POST /`, `X-Amz-Target: AmazonSQS.<Operation>`), whose state survives a restart and a
 * SIGKILL. Written here because no npm package persists SQS without downloading a binary
 * (ElasticMQ is a JVM download); `local-aws-sqs`, used before, kept everything in private fields.
 *
 * What it does, in the order a message meets it:
 * 1. Queues. CreateQueue (the same name with equal attributes answers the same URL; a different
 *    value is SQS's QueueAlreadyExists), SetQueueAttributes, GetQueueUrl, GetQueueAttributes,
 *    ListQueues, DeleteQueue (the name is refused for 60 s after, as SQS does), PurgeQueue (once
 *    per 60 s). Attributes: VisibilityTimeout, MaximumMessageSize, DelaySeconds,
 *    MessageRetentionPeriod, ReceiveMessageWaitTimeSeconds, RedrivePolicy; FIFO queues and
 *    every other attribute are refused by name. A queue URL is `http://<host>:<port>/<account>/<name>`;
 *    any URL whose last path segment names a queue is taken (the port changes with every start).
 * 2. Send. SendMessage, SendMessageBatch (1-10 entries, distinct ids, sizes summed against the
 *    queue's MaximumMessageSize, each entry answered in Successful or Failed). A message's size is
 *    counted as SQS counts it: the body's UTF-8 bytes plus each attribute's name, data type and
 *    value. Bodies with characters outside SQS's set are InvalidMessageContents; DelaySeconds
 *    0-900 per message or the queue's; MessageGroupId is kept and returned as an attribute (a
 *    standard queue with groups is a fair queue; this one does not reorder by group);
 *    MessageDeduplicationId is refused (FIFO only). MD5OfMessageBody and MD5OfMessageAttributes
 *    are SQS's digests (sqs-queues.ts, `md5OfAttributes`), which the SDK checks.
 * 3. Receive. ReceiveMessage takes up to 10 visible messages, oldest visibility first; each gets a
 *    new receipt handle, its receive count goes up and it stays invisible for the queue's (or the
 *    request's, 0 included) VisibilityTimeout. WaitTimeSeconds (0-20, else the queue's) is a real
 *    long poll: it answers as soon as a message is visible. A message already received
 *    maxReceiveCount times is moved to the dead-letter queue instead of being returned (same
 *    MessageId and SentTimestamp, receive count kept, DeadLetterQueueSourceArn set). A message
 *    older than the queue's MessageRetentionPeriod is dropped.
 * 4. Settle. DeleteMessage(Batch) and ChangeMessageVisibility(Batch) act only for the latest
 *    receipt handle: an older one deletes nothing and succeeds (as AWS documents), and changes no
 *    visibility (ReceiptHandleIsInvalid); a message whose visibility already ran out is
 *    MessageNotInflight; a visibility may not end more than 12 h after the receive.
 * 5. Redrive. StartMessageMoveTask from a dead-letter queue moves its visible messages promptly
 *    (or MaxNumberOfMessagesPerSecond) to DestinationArn, or each back to the queue it came from;
 *    as on SQS a moved message is a new one (new MessageId and SentTimestamp, receive count 0).
 *    ListMessageMoveTasks shows the latest 10 tasks of a source, RUNNING, COMPLETED or FAILED.
 * 6. Durability. Under `dir` (the runtime: DATA_DIR/sqs) every change is journaled before the
 *    answer of the request that made it: a SIGKILL right after an answer loses nothing it
 *    confirmed; a message in flight comes back at its own deadline after a restart, delays and
 *    receive counts carry on, a RUNNING move task goes on (local/aws/sqs-queues.ts keeps the
 *    state and its records, local/aws/journal.ts the file: no fsync, so a power loss may lose
 *    the last writes). Without `dir` everything stays in memory (the tests' runtime).
 *
 * This module is the protocol: it reads and checks a request as SQS does, calls the state,
 * flushes the journal and shapes the answer.
 * Errors are SQS's: `__type` with the `x-amzn-query-error` header that the SDK (query-compatible)
 * turns into the legacy codes (QueueDoesNotExist from `AWS.SimpleQueueService.NonExistentQueue`);
 * any other operation is UnsupportedOperation. The sender id is the request's access key.
 *
 * Every request must be SigV4-signed with `credentials` (the runtime's generated ones,
 * ./credentials.ts; ./sigv4.ts checks it, `X-Amz-Date` within 15 minutes), else SQS's answers:
 * `MissingAuthenticationToken` (unsigned), `InvalidClientTokenId` (another key id),
 * `SignatureDoesNotMatch` (a signature that does not match), `RequestExpired` (outside the window),
 * `IncompleteSignature` (malformed). Queue names are SQS's grammar (1-80 of `A-Z a-z 0-9 _ -`) and
 * never name a file: every queue is kept in the one journal under `dir`.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { StandInCredentials } from './credentials';
import { type SignatureVerdict, verifySignature } from './sigv4';
import {
  type AttributeValue,
  ERRORS,
  invalidParameter,
  MAX_DELAY_SECONDS,
  MAX_VISIBILITY_SECONDS,
  MAX_WAIT_SECONDS,
  MOVE_TASKS_KEPT,
  noQueue,
  type Outgoing,
  type Queue,
  type ReceiveRequest,
  SqsError,
  SqsQueues,
  wrongType,
} from './sqs-queues';

export interface LocalSqsOptions {
  /** the folder of the journal; without one, queues live in memory only */
  dir?: string;
  host?: string;
  /** 0: any free port */
  port?: number;
  region: string;
  accountId?: string;
  /** compact the journal once it grows past this many bytes (journal.ts's default otherwise) */
  compactAtBytes?: number;
  /** the only credentials whose SigV4 signatures it accepts (the runtime's, ./credentials.ts) */
  credentials: StandInCredentials;
  /** the runtime's clock (../clock.ts); the machine's when not given */
  clock?: { now: () => number; manual: boolean };
}

export interface LocalSqs {
  server: Server;
  endpoint: string;
  port: number;
  /** A queue's messages visible by `before` (epoch ms: visible now, or delayed or in flight until then) and after it: the control API's drain (../control.ts). */
  backlog(queueName: string, before: number): { due: number; later: number };
  /** The earliest time after `now` a message becomes visible (the manual clock's stops). */
  nextDue(now: number): number | undefined;
  /** The clock moved: long polls look again. */
  tick(): void;
  close(): Promise<void>;
}

/** The account in ARNs and URLs: the local runtime's (local/lambda/needs.ts, kms.ts). */
export const LOCAL_ACCOUNT_ID = '000000000000';

const MAX_BATCH_ENTRIES = 10;
const MAX_MESSAGE_ATTRIBUTES = 10;
/** A request body larger than this is refused before it is parsed (a full batch of 1 MiB, JSON-escaped, fits). */
const MAX_REQUEST_BYTES = 8 * 1024 * 1024;

// ---------------------------------------------------------------------------------------------
// Reading and checking a request
// ---------------------------------------------------------------------------------------------

/** Characters SQS refuses in a body or string value (outside #x9 | #xA | #xD | #x20-#xD7FF | #xE000-#xFFFD | #x10000-#x10FFFF). */
const INVALID_CHARACTER = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/u;
const BATCH_ENTRY_ID = /^[A-Za-z0-9_-]{1,80}$/;
const ATTRIBUTE_NAME = /^[A-Za-z0-9_.-]{1,256}$/;
const DATA_TYPE = /^(String|Number|Binary)(\.[A-Za-z0-9_.-]+)?$/;
const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;

type Input = Record<string, unknown>;

function optionalString(input: Input, name: string): string | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'string') throw wrongType(name, 'a string');
  return value;
}

function requiredString(input: Input, name: string): string {
  const value = optionalString(input, name);
  if (value === undefined || value === '')
    throw new SqsError('MissingParameter', `The request must contain the parameter ${name}.`);
  return value;
}

function optionalInteger(
  input: Input,
  name: string,
  [min, max]: readonly [number, number],
  reason: string,
): number | undefined {
  const value = input[name];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value)) throw wrongType(name, 'an integer');
  if (value < min || value > max) throw invalidParameter(name, value, reason);
  return value;
}

function stringList(input: Input, name: string): string[] {
  const value = input[name];
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value) || value.some((item) => typeof item !== 'string'))
    throw wrongType(name, 'a list of strings');
  return value;
}

function stringMap(input: Input, name: string): Record<string, unknown> {
  const value = input[name];
  if (value === undefined || value === null) return {};
  if (typeof value !== 'object' || Array.isArray(value)) throw wrongType(name, 'a map');
  return value as Record<string, unknown>;
}

/** A batch request's entries (`kind`: the entry's type, for the error SQS gives an empty batch). */
function entries(input: Input, kind: string): Input[] {
  const name = 'Entries';
  const value = input[name];
  if (value !== undefined && value !== null && !Array.isArray(value)) throw wrongType(name, 'a list');
  const list = (value ?? []) as unknown[];
  if (list.length === 0)
    throw new SqsError('EmptyBatchRequest', `There should be at least one ${kind} in the request.`);
  if (list.length > MAX_BATCH_ENTRIES)
    throw new SqsError(
      'TooManyEntriesInBatchRequest',
      `Maximum number of entries per request are ${MAX_BATCH_ENTRIES}. You have sent ${list.length}.`,
    );
  const seen = new Set<string>();
  for (const entry of list) {
    if (typeof entry !== 'object' || entry === null || Array.isArray(entry)) throw wrongType(name, 'a list of entries');
    const id = (entry as Input).Id;
    if (typeof id !== 'string' || !BATCH_ENTRY_ID.test(id)) {
      throw new SqsError(
        'InvalidBatchEntryId',
        'A batch entry id can only contain alphanumeric characters, hyphens and underscores. It can be at most 80 letters long.',
      );
    }
    if (seen.has(id)) throw new SqsError('BatchEntryIdsNotDistinct', `Id ${id} repeated.`);
    seen.add(id);
  }
  return list as Input[];
}

/** A message's attributes, checked as SQS checks them; answers them with their bytes (they count towards the message's size). */
function messageAttributes(raw: Record<string, unknown>): {
  attributes?: Record<string, AttributeValue>;
  bytes: number;
} {
  const names = Object.keys(raw);
  if (names.length === 0) return { bytes: 0 };
  if (names.length > MAX_MESSAGE_ATTRIBUTES)
    throw invalidParameter(
      'MessageAttributes',
      names.length,
      `Number of message attributes [${names.length}] exceeds the allowed maximum [${MAX_MESSAGE_ATTRIBUTES}].`,
    );
  const attributes: Record<string, AttributeValue> = {};
  let bytes = 0;
  for (const name of names) {
    const reserved = /^(aws\.|amazon\.)/i.test(name);
    if (!ATTRIBUTE_NAME.test(name) || reserved || name.startsWith('.') || name.endsWith('.') || name.includes('..')) {
      throw invalidParameter(
        'MessageAttributes',
        name,
        `Message attribute name '${name}' is invalid: 1-256 of A-Z a-z 0-9 _ - ., no leading, trailing or doubled period, not starting with AWS. or Amazon.`,
      );
    }
    const value = raw[name] as Input;
    if (typeof value !== 'object' || value === null)
      throw wrongType(`MessageAttributes.${name}`, 'a message attribute value');
    const dataType = optionalString(value, 'DataType');
    if (!dataType)
      throw invalidParameter(
        'MessageAttributes',
        name,
        `The message attribute '${name}' must contain a non-empty message attribute type.`,
      );
    if (!DATA_TYPE.test(dataType) || dataType.length > 256)
      throw invalidParameter(
        'MessageAttributes',
        name,
        `The type of message (user) attribute '${name}' is invalid. You must use only the following supported type prefixes: Binary, Number, String.`,
      );
    if (
      stringList(value, 'StringListValues').length > 0 ||
      (Array.isArray(value.BinaryListValues) && value.BinaryListValues.length > 0)
    ) {
      throw invalidParameter(
        'MessageAttributes',
        name,
        `Message attribute list values in '${name}' are not supported.`,
      );
    }
    let valueBytes: number;
    if (dataType.startsWith('Binary')) {
      const binary = optionalString(value, 'BinaryValue');
      if (!binary)
        throw invalidParameter(
          'MessageAttributes',
          name,
          `The message attribute '${name}' with type 'Binary' must use field 'Binary'.`,
        );
      valueBytes = Buffer.from(binary, 'base64').length;
      attributes[name] = { DataType: dataType, BinaryValue: binary };
    } else {
      const text = optionalString(value, 'StringValue');
      if (!text)
        throw invalidParameter(
          'MessageAttributes',
          name,
          `The message attribute '${name}' must contain a non-empty value of type '${dataType.split('.')[0]}'.`,
        );
      if (dataType.startsWith('Number') && !NUMBER.test(text))
        throw invalidParameter(
          'MessageAttributes',
          name,
          `Can't cast the value of message (user) attribute '${name}' to a number.`,
        );
      if (INVALID_CHARACTER.test(text))
        throw new SqsError(
          'InvalidMessageContents',
          `Invalid characters found in the value of message attribute '${name}'.`,
        );
      valueBytes = Buffer.byteLength(text, 'utf8');
      attributes[name] = { DataType: dataType, StringValue: text };
    }
    bytes += Buffer.byteLength(name, 'utf8') + Buffer.byteLength(dataType, 'utf8') + valueBytes;
  }
  return { attributes, bytes };
}

/** One message to send (SendMessage, or an entry of SendMessageBatch), checked as SQS checks it; its size is checked against the queue when it is sent. */
function outgoing(input: Input, queue: Queue): Outgoing {
  const body = requiredString(input, 'MessageBody');
  const match = INVALID_CHARACTER.exec(body);
  if (match) {
    const code = (match[0].codePointAt(0) ?? 0).toString(16).toUpperCase();
    throw new SqsError(
      'InvalidMessageContents',
      `Invalid binary character '#x${code}' was found in the message body, the set of allowed characters is #x9 | #xA | #xD | #x20 to #xD7FF | #xE000 to #xFFFD | #x10000 to #x10FFFF`,
    );
  }
  const delaySeconds =
    optionalInteger(
      input,
      'DelaySeconds',
      [0, MAX_DELAY_SECONDS],
      `DelaySeconds must be >= 0 and <= ${MAX_DELAY_SECONDS}`,
    ) ?? queue.config.DelaySeconds;
  if (optionalString(input, 'MessageDeduplicationId') !== undefined) {
    throw invalidParameter(
      'MessageDeduplicationId',
      input.MessageDeduplicationId,
      'The request includes a parameter that is not valid for this queue type (standard).',
    );
  }
  const groupId = optionalString(input, 'MessageGroupId');
  if (groupId !== undefined && !/^[\x21-\x7E]{1,128}$/.test(groupId))
    throw invalidParameter('MessageGroupId', groupId, 'MessageGroupId can be 1-128 printable ASCII characters.');
  const system = stringMap(input, 'MessageSystemAttributes');
  const traceValue = system.AWSTraceHeader as Input | undefined;
  const unknownSystem = Object.keys(system).filter((name) => name !== 'AWSTraceHeader');
  if (unknownSystem.length > 0)
    throw invalidParameter(
      'MessageSystemAttributes',
      unknownSystem[0],
      'Only AWSTraceHeader is a message system attribute a sender may set.',
    );
  const traceHeader = traceValue ? optionalString(traceValue, 'StringValue') : undefined;
  const { attributes, bytes: attributeBytes } = messageAttributes(stringMap(input, 'MessageAttributes'));
  const bytes = Buffer.byteLength(body, 'utf8') + attributeBytes;
  return { body, bytes, delaySeconds, attributes, groupId, traceHeader };
}

// ---------------------------------------------------------------------------------------------
// The operations: read the request, call the state, shape the answer
// ---------------------------------------------------------------------------------------------

interface Call {
  input: Input;
  senderId: string;
  /** the client hung up (a long poll stops waiting) */
  gone: () => boolean;
}

const receiveRequest = (input: Input): ReceiveRequest => ({
  max:
    optionalInteger(input, 'MaxNumberOfMessages', [1, MAX_BATCH_ENTRIES], 'Must be between 1 and 10, if provided.') ??
    1,
  visibilitySeconds: optionalInteger(
    input,
    'VisibilityTimeout',
    [0, MAX_VISIBILITY_SECONDS],
    `Must be between 0 and ${MAX_VISIBILITY_SECONDS}, if provided.`,
  ),
  waitSeconds: optionalInteger(
    input,
    'WaitTimeSeconds',
    [0, MAX_WAIT_SECONDS],
    `Must be >= 0 and <= ${MAX_WAIT_SECONDS}, if provided.`,
  ),
  systemAttributes: [...stringList(input, 'MessageSystemAttributeNames'), ...stringList(input, 'AttributeNames')],
  messageAttributes: stringList(input, 'MessageAttributeNames'),
});

/** A batch entry's failure as SQS reports it. */
const failed = (id: string, error: unknown) => {
  const fault = error instanceof SqsError ? error : new SqsError('InternalFailure', String(error));
  return { Id: id, SenderFault: fault.code !== 'InternalFailure', Code: fault.query, Message: fault.message };
};

/** Answers the batch's entries: those `run` completed in Successful, those it threw for in Failed. */
function batch(list: Input[], run: (entry: Input) => Record<string, unknown> | undefined) {
  const Successful: Record<string, unknown>[] = [];
  const Failed: ReturnType<typeof failed>[] = [];
  for (const entry of list) {
    try {
      Successful.push({ Id: entry.Id, ...run(entry) });
    } catch (error) {
      Failed.push(failed(String(entry.Id), error));
    }
  }
  return { Successful, Failed };
}

function operations(sqs: SqsQueues): Record<string, (call: Call) => unknown> {
  const queue = (input: Input) => sqs.queueByUrl(requiredString(input, 'QueueUrl'));
  const visibility = (input: Input) => {
    const seconds = optionalInteger(
      input,
      'VisibilityTimeout',
      [0, MAX_VISIBILITY_SECONDS],
      `Must be between 0 and ${MAX_VISIBILITY_SECONDS}.`,
    );
    if (seconds === undefined)
      throw new SqsError('MissingParameter', 'The request must contain the parameter VisibilityTimeout.');
    return seconds;
  };
  return {
    CreateQueue: ({ input }) => ({
      QueueUrl: sqs.createQueue(requiredString(input, 'QueueName'), stringMap(input, 'Attributes')),
    }),
    SetQueueAttributes: ({ input }) => (sqs.setQueueAttributes(queue(input), stringMap(input, 'Attributes')), {}),
    GetQueueUrl: ({ input }) => {
      const owner = optionalString(input, 'QueueOwnerAWSAccountId');
      if (owner !== undefined && owner !== sqs.accountId) throw noQueue();
      return { QueueUrl: sqs.getQueueUrl(requiredString(input, 'QueueName')) };
    },
    GetQueueAttributes: ({ input }) => {
      const attributes = sqs.getQueueAttributes(queue(input), stringList(input, 'AttributeNames'));
      return Object.keys(attributes).length > 0 ? { Attributes: attributes } : {};
    },
    ListQueues: ({ input }) =>
      sqs.listQueues(
        optionalString(input, 'QueueNamePrefix'),
        optionalInteger(input, 'MaxResults', [1, 1000], 'MaxResults must be an integer between 1 and 1000.'),
        optionalString(input, 'NextToken'),
      ),
    DeleteQueue: ({ input }) => (sqs.deleteQueue(queue(input)), {}),
    PurgeQueue: ({ input }) => (sqs.purgeQueue(queue(input)), {}),
    SendMessage: ({ input, senderId }) => {
      const target = queue(input);
      return sqs.send(target, outgoing(input, target), senderId);
    },
    SendMessageBatch: ({ input, senderId }) => {
      const target = queue(input);
      const list = entries(input, 'SendMessageBatchRequestEntry');
      const checked = new Map<Input, Outgoing | SqsError>();
      let total = 0;
      for (const entry of list) {
        try {
          const message = outgoing(entry, target);
          total += message.bytes;
          checked.set(entry, message);
        } catch (error) {
          if (!(error instanceof SqsError)) throw error;
          checked.set(entry, error);
          total += Buffer.byteLength(typeof entry.MessageBody === 'string' ? entry.MessageBody : '', 'utf8');
        }
      }
      const limit = target.config.MaximumMessageSize;
      if (total > limit)
        throw new SqsError(
          'BatchRequestTooLong',
          `Batch requests cannot be longer than ${limit} bytes. You have sent ${total} bytes.`,
        );
      return batch(list, (entry) => {
        const message = checked.get(entry)!;
        if (message instanceof SqsError) throw message;
        return sqs.send(target, message, senderId);
      });
    },
    ReceiveMessage: async ({ input, gone }) => {
      const target = queue(input);
      const messages = await sqs.receive(target.name, receiveRequest(input), gone);
      return messages.length > 0 ? { Messages: messages } : {};
    },
    DeleteMessage: ({ input }) => (sqs.deleteMessage(queue(input), requiredString(input, 'ReceiptHandle')), {}),
    DeleteMessageBatch: ({ input }) => {
      const target = queue(input);
      return batch(
        entries(input, 'DeleteMessageBatchRequestEntry'),
        (entry) => (sqs.deleteMessage(target, requiredString(entry, 'ReceiptHandle')), undefined),
      );
    },
    ChangeMessageVisibility: ({ input }) => (
      sqs.changeVisibility(queue(input), requiredString(input, 'ReceiptHandle'), visibility(input)), {}
    ),
    ChangeMessageVisibilityBatch: ({ input }) => {
      const target = queue(input);
      return batch(
        entries(input, 'ChangeMessageVisibilityBatchRequestEntry'),
        (entry) => (sqs.changeVisibility(target, requiredString(entry, 'ReceiptHandle'), visibility(entry)), undefined),
      );
    },
    StartMessageMoveTask: ({ input }) => ({
      TaskHandle: sqs.startMoveTask(
        requiredString(input, 'SourceArn'),
        optionalString(input, 'DestinationArn'),
        optionalInteger(
          input,
          'MaxNumberOfMessagesPerSecond',
          [1, 500],
          'MaxNumberOfMessagesPerSecond must be between 1 and 500.',
        ),
      ),
    }),
    ListMessageMoveTasks: ({ input }) => ({
      Results: sqs.listMoveTasks(
        requiredString(input, 'SourceArn'),
        optionalInteger(input, 'MaxResults', [1, MOVE_TASKS_KEPT], 'MaxResults must be between 1 and 10.') ?? 1,
      ),
    }),
  };
}

// ---------------------------------------------------------------------------------------------
// HTTP
// ---------------------------------------------------------------------------------------------

function answer(response: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (response.headersSent || response.destroyed) return;
  response.writeHead(status, {
    'content-type': 'application/x-amz-json-1.0',
    'x-amzn-requestid': randomUUID(),
    ...headers,
  });
  response.end(JSON.stringify(body));
}

/** SQS's answer to a signature that does not hold (its query code, then its status). */
const AUTH_ERRORS: Record<Exclude<SignatureVerdict, { ok: true }>['reason'], [string, number]> = {
  missing: ['MissingAuthenticationToken', 403],
  malformed: ['IncompleteSignature', 400],
  'unknown key': ['InvalidClientTokenId', 403],
  mismatch: ['SignatureDoesNotMatch', 403],
  skewed: ['RequestExpired', 400],
  expired: ['RequestExpired', 400],
};

function answerAuthError(response: ServerResponse, verdict: Exclude<SignatureVerdict, { ok: true }>): void {
  const [code, status] = AUTH_ERRORS[verdict.reason];
  answer(
    response,
    status,
    { __type: `com.amazon.coral.service#${code}`, message: verdict.message },
    { 'x-amzn-query-error': `${code};Sender` },
  );
}

function answerError(response: ServerResponse, error: SqsError): void {
  const shape = ERRORS[error.code];
  const type = 'type' in shape ? shape.type : `com.amazonaws.sqs#${error.code}`;
  const fault = shape.status >= 500 ? 'Receiver' : 'Sender';
  answer(
    response,
    shape.status,
    { __type: type, message: error.message },
    { 'x-amzn-query-error': `${shape.query};${fault}` },
  );
}

/** The body, or undefined when it is larger than MAX_REQUEST_BYTES (read to its end and dropped, so the answer reaches the client). */
async function readBody(request: IncomingMessage): Promise<Buffer | undefined> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size <= MAX_REQUEST_BYTES) chunks.push(chunk as Buffer);
  }
  return size > MAX_REQUEST_BYTES ? undefined : Buffer.concat(chunks);
}

export async function startLocalSqs(options: LocalSqsOptions): Promise<LocalSqs> {
  const host = options.host ?? '127.0.0.1';
  const sqs = new SqsQueues(
    options.region,
    options.accountId ?? LOCAL_ACCOUNT_ID,
    options.dir,
    options.compactAtBytes,
    options.clock,
  );
  const table = operations(sqs);

  let closing = false;
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    let hungUp = false; // the client went away before its answer: a long poll receives nothing for it
    response.once('close', () => (hungUp = !response.writableEnded));
    try {
      const body = await readBody(request);
      if (!body) throw new SqsError('RequestEntityTooLarge', `The request is larger than ${MAX_REQUEST_BYTES} bytes.`);
      const verdict = await verifySignature(request, options.credentials, {
        service: 'sqs',
        uriEscapePath: true,
        body,
      });
      if (!verdict.ok) return answerAuthError(response, verdict);
      if (closing)
        throw new SqsError('InternalFailure', 'The local SQS is stopping; its journal takes no more changes.');
      const target = String(request.headers['x-amz-target'] ?? '');
      const operation = target.startsWith('AmazonSQS.') ? table[target.slice('AmazonSQS.'.length)] : undefined;
      if (request.method !== 'POST' || !operation) {
        const name = target.replace(/^AmazonSQS\./, '') || request.method;
        throw new SqsError(
          'UnsupportedOperation',
          `The local SQS does not support ${name} (JSON protocol, X-Amz-Target: AmazonSQS.<Operation>; operations: ${Object.keys(table).join(', ')}).`,
        );
      }
      let input: unknown;
      try {
        input = JSON.parse(body.toString('utf8') || '{}');
      } catch {
        throw new SqsError('SerializationException', 'The request body is not JSON.');
      }
      if (typeof input !== 'object' || input === null || Array.isArray(input))
        throw new SqsError('SerializationException', 'The request body is not a JSON object.');
      const output = await operation({ input: input as Input, senderId: verdict.accessKeyId, gone: () => hungUp });
      sqs.flush(); // step 6: journaled before the answer
      answer(response, 200, output);
    } catch (error) {
      let fault =
        error instanceof SqsError ? error : new SqsError('InternalFailure', `The local SQS failed: ${String(error)}`);
      try {
        sqs.flush(); // what a failed batch entry's neighbours changed
      } catch (flushError) {
        fault = new SqsError('InternalFailure', `The local SQS could not write its journal: ${String(flushError)}`);
      }
      answerError(response, fault);
    }
  };

  const server = createServer((request, response) => void handle(request, response));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const endpoint = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  sqs.baseUrl = endpoint;
  sqs.resumeTasks();
  return {
    server,
    endpoint,
    port,
    backlog: (queueName, before) => sqs.backlog(queueName, before),
    nextDue: (now) => sqs.nextDue(now),
    tick: () => sqs.tick(),
    close: async () => {
      closing = true;
      sqs.close(); // move tasks stop, the journal is flushed and closed, long polls end
      await new Promise((resolve) => setImmediate(resolve)); // ... and answer (nothing) before the connections close
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
