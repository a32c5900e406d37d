/**
 * The local stand-in for EventBridge Scheduler: one-time schedules that send a message to a local
 * SQS queue at their time, over Scheduler's REST-JSON protocol on loopback, so the real
 * `@aws-sdk/client-scheduler` and the service's hand-signed calls (shared/platform/aws/scheduler.ts)
 * both work against it (test/integration/local-scheduler.test.ts). Handlers reach it through
 * `AWS_ENDPOINT_URL_SCHEDULER`.
 *
 * 1. Operations: CreateSchedule (`POST /schedules/{Name}`), GetSchedule (`GET /schedules/{Name}`),
 *    DeleteSchedule (`DELETE /schedules/{Name}`), ListSchedules (`GET /schedules`, by
 *    `ScheduleGroup`, `NamePrefix`, `State`, paged by `MaxResults` 1-100 and `NextToken`). Groups
 *    are made by the runtime (`ensureGroup`: SCHEDULE_GROUP_NAME at every start) besides `default`,
 *    which always exists; any other route is 404 `UnknownOperationException`.
 * 2. What Scheduler refuses, with its codes: a name or group name that is not 1-64 of
 *    `[0-9a-zA-Z-_.]`, a missing or malformed member (`ValidationException`, 400: an `at()` that is
 *    not `at(yyyy-mm-ddThh:mm:ss)` of a real date and time, a role ARN not an IAM role's, retry
 *    limits outside 60-86,400 s and 0-185 attempts...), a group that does not exist
 *    (`ResourceNotFoundException`, 404), a name taken in its group (`ConflictException`, 409; the
 *    same request again with the same `ClientToken` answers the schedule's ARN, as Scheduler's
 *    idempotency does), a schedule that does not exist (`ResourceNotFoundException`). Errors are
 *    REST-JSON's: `x-amzn-errortype` and `{"Message"}`.
 * 3. What this stand-in does not emulate, refused by name (ValidationException) rather than
 *    accepted and ignored: `rate()` and `cron()` expressions, a time zone other than UTC, a target
 *    that is not a queue of the local SQS (`arn:aws:sqs:<region>:<account>:<queue>`; whether the queue
 *    exists is found at delivery, as on AWS), target parameters of other target types, a schedule
 *    without `Input` (the SQS message body).
 * 4. Firing, on the runtime's clock (../clock.ts): on the manual clock the stand-in is a due source,
 *    so a move stops at each schedule's time in order with the other due work and delivers there;
 *    on the real clock one machine timer waits for the earliest schedule. A schedule whose time
 *    passed while the runtime was stopped fires once it starts again (`start`, after the queues
 *    exist); one created with a time already past fires at once. A flexible time window fires at
 *    its start. Delivery is SendMessage of `Input` (with `SqsParameters.MessageGroupId`) to the
 *    target queue; then `ActionAfterCompletion: DELETE` deletes the schedule, `NONE` keeps it,
 *    completed. A delivery SQS refuses (no such queue, a body too large) goes to the schedule's
 *    dead-letter queue at once, as an event Scheduler will not retry, with the attributes Scheduler's
 *    dead-letter messages carry (ERROR_CODE, ERROR_MESSAGE, RETRY_ATTEMPTS, SCHEDULE_ARN,
 *    TARGET_ARN); a fault short of an answer (the local SQS stopping) is tried again a second later.
 *    At least once, as Scheduler: a kill between the send and the delete sends again after the restart.
 * 5. Durable: under `dir` (the runtime: DATA_DIR/scheduler/) every change is journaled
 *    (./journal.ts) before the answer of the request that made it, so a SIGKILL right after an answer
 *    loses no schedule it confirmed; the journal is compacted by writing a snapshot and renaming it
 *    over. Without `dir` everything stays in memory (the tests' runtime, whose table is in memory too).
 *
 * Every request must be SigV4-signed (signing name `scheduler`) with the runtime's generated
 * credentials (./credentials.ts, checked by ./sigv4.ts, `X-Amz-Date` within 15 minutes), else the
 * REST-JSON services' answers, all 403: `MissingAuthenticationTokenException` (unsigned),
 * `IncompleteSignatureException` (malformed), `UnrecognizedClientException` (another key id),
 * `InvalidSignatureException` (a signature that does not match, or outside the window). Which
 * function may call what is the call guard's (local/lambda/needs.ts). Names never name a file.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type MessageAttributeValue, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import type { StandInCredentials } from './credentials';
import { Journal } from './journal';
import { REST_JSON_AUTH_ERRORS, verifySignature } from './sigv4';
import { LOCAL_ACCOUNT_ID } from './sqs';
import { sdkLogger } from '../../shared/platform/aws/sdk-logger';

/** What the stand-in reads of the runtime's clock (../clock.ts `LocalClock`). */
export interface SchedulerClock {
  readonly mode: 'real' | 'manual';
  now(): number;
  addSource(source: { nextDue(now: number): number | undefined }): void;
  onMoved(listener: () => void): void;
}

export interface LocalSchedulerOptions {
  /** the folder of its journal; without one, schedules live in memory only */
  dir?: string;
  region: string;
  accountId?: string;
  /** the only credentials whose SigV4 signatures it accepts (the runtime's, ./credentials.ts) */
  credentials: StandInCredentials;
  clock: SchedulerClock;
  /** the local SQS, where targets and dead-letter queues are */
  sqsEndpoint: string;
  host?: string;
  /** 0 (the default): any free port */
  port?: number;
  log?: (line: string) => void;
}

export interface LocalScheduler {
  server: Server;
  endpoint: string;
  port: number;
  /** The group `name`, made (and journaled) if it does not exist yet: its ARN. */
  ensureGroup(name: string): string;
  /** Starts delivering: what is due now at once, the rest at its time. Call once the target queues exist. */
  start(): void;
  /** Schedules due by `before` (epoch ms) not delivered yet, deliveries in flight included: the control API's drain. */
  busy(before: number): number;
  /** Schedules due after `before`. */
  later(before: number): number;
  /** Deliveries made since the start (to a target or a dead-letter queue). */
  delivered(): number;
  close(): Promise<void>;
}

/** Scheduler's names: schedules and groups. */
const NAME = /^[0-9a-zA-Z_.-]{1,64}$/;
const CLIENT_TOKEN = /^[a-zA-Z0-9_-]{1,64}$/;
const ROLE_ARN = /^arn:aws(-[a-z]+)?:iam::\d{12}:role\/[\w+=,.@/-]+$/;
const QUEUE_ARN = /^arn:aws(-[a-z]+)?:sqs:[a-z0-9-]+:\d{12}:[a-zA-Z0-9_-]+$/;
const AT = /^at\((\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})\)$/;
const UTC_ZONES = new Set(['UTC', 'Etc/UTC', 'GMT', 'Etc/GMT']);
/** Target members of other target types (Scheduler's Target shape), which an SQS target may not carry. */
const OTHER_TARGET_PARAMETERS = [
  'EcsParameters',
  'EventBridgeParameters',
  'EventBridgePutEventsV2Parameters',
  'EventBridgePutRawEventsParameters',
  'KinesisParameters',
  'SageMakerPipelineParameters',
];
/** This stand-in's own bound on a request body (Scheduler's inputs are far smaller). */
const MAX_REQUEST_BYTES = 1024 * 1024;
const MAX_LIST_RESULTS = 100;
/** A delivery that failed short of an answer (the local SQS stopping) is tried again after this, machine time. */
const RETRY_DELAY_MS = 1000;
/** The real clock's timer waits at most this long at once (setTimeout's limit is 24.8 days). */
const MAX_TIMER_MS = 60 * 60 * 1000;

interface Target {
  Arn: string;
  RoleArn: string;
  Input: string;
  DeadLetterConfig?: { Arn?: string };
  RetryPolicy?: { MaximumEventAgeInSeconds?: number; MaximumRetryAttempts?: number };
  SqsParameters?: { MessageGroupId?: string };
}

interface Schedule {
  group: string;
  name: string;
  expression: string;
  timezone: string;
  /** when it fires (epoch ms, from the `at()` in UTC) */
  dueAt: number;
  state: 'ENABLED' | 'DISABLED';
  target: Target;
  flexibleTimeWindow: { Mode: 'OFF' | 'FLEXIBLE'; MaximumWindowInMinutes?: number };
  actionAfterCompletion: 'NONE' | 'DELETE';
  description?: string;
  startDate?: number;
  endDate?: number;
  kmsKeyArn?: string;
  clientToken?: string;
  /** epoch ms on the runtime's clock */
  created: number;
  modified: number;
  /** delivered and kept (`ActionAfterCompletion: NONE`): never fires again */
  completed?: boolean;
}

type JournalRecord =
  | { t: 'group'; name: string; created: number }
  | { t: 'schedule'; s: Schedule }
  | { t: 'delete'; group: string; name: string };

class SchedulerFault extends Error {
  constructor(
    readonly type: string,
    message: string,
    readonly status = 400,
  ) {
    super(message);
  }
}

const invalid = (message: string) => new SchedulerFault('ValidationException', message);
/** Scheduler's (Coral's) wording for a member that breaks its model. */
const breaks = (value: unknown, member: string, constraint: string) =>
  invalid(
    `1 validation error detected: Value ${value === undefined || value === null ? 'null' : `'${String(value)}'`} at '${member}' failed to satisfy constraint: ${constraint}`,
  );
const notFound = (message: string) => new SchedulerFault('ResourceNotFoundException', message, 404);

type Input = Record<string, unknown>;

function string(input: Input, member: string, path: string, required: true): string;
function string(input: Input, member: string, path: string, required?: false): string | undefined;
function string(input: Input, member: string, path: string, required = false): string | undefined {
  const value = input[member];
  if (value === undefined || value === null) {
    if (required) throw breaks(undefined, path, 'Member must not be null');
    return undefined;
  }
  if (typeof value !== 'string') throw new SchedulerFault('SerializationException', `${path} must be a string`);
  return value;
}

function object(input: Input, member: string, path: string, required = false): Input | undefined {
  const value = input[member];
  if (value === undefined || value === null) {
    if (required) throw breaks(undefined, path, 'Member must not be null');
    return undefined;
  }
  if (typeof value !== 'object' || Array.isArray(value))
    throw new SchedulerFault('SerializationException', `${path} must be an object`);
  return value as Input;
}

function whole(input: Input, member: string, path: string, min: number, max: number): number | undefined {
  const value = input[member];
  if (value === undefined || value === null) return undefined;
  if (typeof value !== 'number' || !Number.isInteger(value))
    throw new SchedulerFault('SerializationException', `${path} must be a whole number`);
  if (value < min) throw breaks(value, path, `Member must have value greater than or equal to ${min}`);
  if (value > max) throw breaks(value, path, `Member must have value less than or equal to ${max}`);
  return value;
}

function checkName(value: string | undefined, member: string): string {
  if (value === undefined) throw breaks(undefined, member, 'Member must not be null');
  if (value.length < 1 || value.length > 64)
    throw breaks(value, member, 'Member must have length less than or equal to 64 and greater than or equal to 1');
  if (!NAME.test(value)) throw breaks(value, member, 'Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+');
  return value;
}

/** The time of `at(yyyy-mm-ddThh:mm:ss)` in UTC, or a ValidationException. */
function dueTime(expression: string): number {
  if (/^(rate|cron)\(/.test(expression))
    throw invalid(
      `The local EventBridge Scheduler runs one-time schedules only: ${expression.split('(')[0]}() expressions are not emulated`,
    );
  const m = AT.exec(expression);
  const [year, month, day, hour, minute, second] = (m ?? []).slice(1).map(Number);
  const at = m ? Date.UTC(year, month - 1, day, hour, minute, second) : Number.NaN;
  const back = new Date(at);
  if (
    Number.isNaN(at) ||
    back.getUTCFullYear() !== year ||
    back.getUTCMonth() !== month - 1 ||
    back.getUTCDate() !== day ||
    back.getUTCHours() !== hour ||
    back.getUTCMinutes() !== minute
  )
    throw invalid(`Invalid Schedule Expression ${expression}.`);
  return at;
}

/** Epoch seconds, as REST-JSON writes a timestamp. */
const seconds = (ms: number) => ms / 1000;

/** EventBridge Scheduler on loopback for requests signed with `credentials`, delivering to the local SQS. */
export async function startLocalScheduler(options: LocalSchedulerOptions): Promise<LocalScheduler> {
  const { region, clock, credentials } = options;
  const account = options.accountId ?? LOCAL_ACCOUNT_ID;
  const log = options.log ?? (() => undefined);
  const groups = new Map<string, number>([['default', clock.now()]]);
  const schedules = new Map<string, Schedule>();
  const keyOf = (group: string, name: string) => `${group}/${name}`;
  const journal = new Journal<JournalRecord>({
    dir: options.dir,
    apply: (record) => {
      if (record.t === 'group') groups.set(record.name, record.created);
      else if (record.t === 'schedule') schedules.set(keyOf(record.s.group, record.s.name), record.s);
      else schedules.delete(keyOf(record.group, record.name));
    },
    snapshot: function* () {
      for (const [name, created] of groups) if (name !== 'default') yield { t: 'group', name, created };
      for (const s of schedules.values()) yield { t: 'schedule', s };
    },
  });
  const groupArn = (name: string) => `arn:aws:scheduler:${region}:${account}:schedule-group/${name}`;
  const scheduleArn = (s: { group: string; name: string }) =>
    `arn:aws:scheduler:${region}:${account}:schedule/${s.group}/${s.name}`;
  const localQueue = new RegExp(`^arn:aws:sqs:${region}:${account}:([A-Za-z0-9_-]{1,80})$`);

  // ---- delivering ---------------------------------------------------------------------------
  const sqs = new SQSClient({ endpoint: options.sqsEndpoint, region, credentials, logger: sdkLogger });
  const queueUrl = (arn: string) => {
    const queue = localQueue.exec(arn)?.[1];
    return queue ? `${options.sqsEndpoint}/${account}/${queue}` : undefined;
  };
  const inFlight = new Map<string, Promise<void>>();
  /** a delivery that failed short of an answer is not tried again before this (machine time) */
  const retryAfter = new Map<string, number>();
  let started = false;
  let closed = false;
  let deliveries = 0;
  let timer: NodeJS.Timeout | undefined;
  const pending = () => [...schedules.values()].filter((s) => s.state === 'ENABLED' && !s.completed);

  /** Its delivery is done: deleted (DELETE) or kept as completed (NONE), journaled either way. */
  const complete = (s: Schedule) => {
    const key = keyOf(s.group, s.name);
    if (schedules.get(key) !== s) return; // deleted or replaced while its delivery was in flight
    if (s.actionAfterCompletion === 'DELETE') {
      schedules.delete(key);
      journal.record({ t: 'delete', group: s.group, name: s.name });
    } else {
      const done = { ...s, completed: true, modified: clock.now() };
      schedules.set(key, done);
      journal.record({ t: 'schedule', s: done });
    }
    journal.flush();
  };

  /** A delivery SQS refused: to the schedule's dead-letter queue, as Scheduler sends an event it gives up on. */
  const deadLetter = async (s: Schedule, error: { name?: string; message?: string }) => {
    const dlq = s.target.DeadLetterConfig?.Arn;
    const url = dlq && queueUrl(dlq);
    const attribute = (value: string): MessageAttributeValue => ({ DataType: 'String', StringValue: value });
    log(
      JSON.stringify({
        level: 'WARN',
        message: `schedule ${s.group}/${s.name}: SQS refused its delivery${url ? ', sent to its dead-letter queue' : ' and it has no local dead-letter queue: dropped'}`,
        error: `${error.name}: ${error.message}`,
      }),
    );
    if (!url) return;
    await sqs
      .send(
        new SendMessageCommand({
          QueueUrl: url,
          MessageBody: s.target.Input,
          MessageAttributes: {
            ERROR_CODE: attribute(error.name ?? 'Error'),
            ERROR_MESSAGE: attribute((error.message ?? '').slice(0, 1000) || 'SQS refused the message'),
            RETRY_ATTEMPTS: attribute('0'),
            SCHEDULE_ARN: attribute(scheduleArn(s)),
            TARGET_ARN: attribute(s.target.Arn),
          },
        }),
      )
      .catch((dlqError: unknown) =>
        log(
          JSON.stringify({
            level: 'ERROR',
            message: `schedule ${s.group}/${s.name}: its dead-letter queue refused the event too: dropped`,
            error: String(dlqError),
          }),
        ),
      );
  };

  const deliver = async (s: Schedule) => {
    try {
      await sqs.send(
        new SendMessageCommand({
          QueueUrl: queueUrl(s.target.Arn),
          MessageBody: s.target.Input,
          ...(s.target.SqsParameters?.MessageGroupId ? { MessageGroupId: s.target.SqsParameters.MessageGroupId } : {}),
        }),
      );
    } catch (error) {
      const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
      if (closed || status === undefined || status >= 500) {
        // no answer, or SQS's own fault: the schedule stays due and is tried again a moment later
        retryAfter.set(keyOf(s.group, s.name), Date.now() + RETRY_DELAY_MS);
        if (!closed) setTimeout(fireDue, RETRY_DELAY_MS).unref();
        return;
      }
      await deadLetter(s, error as Error);
    }
    retryAfter.delete(keyOf(s.group, s.name));
    complete(s);
    deliveries++;
  };

  /** Delivers every schedule due by now that is not on its way already. */
  function fireDue(): void {
    if (!started || closed) return;
    const now = clock.now();
    for (const s of pending()) {
      const key = keyOf(s.group, s.name);
      if (s.dueAt > now || inFlight.has(key) || (retryAfter.get(key) ?? 0) > Date.now()) continue;
      const delivery = deliver(s)
        .catch((error: unknown) =>
          log(JSON.stringify({ level: 'ERROR', message: `schedule ${key}: delivery failed`, error: String(error) })),
        )
        .finally(() => {
          inFlight.delete(key);
          arm();
        });
      inFlight.set(key, delivery);
    }
  }

  /** The real clock: one machine timer for the earliest schedule not on its way. */
  function arm(): void {
    if (clock.mode !== 'real' || !started || closed) return;
    clearTimeout(timer);
    let next: number | undefined;
    for (const s of pending()) {
      const key = keyOf(s.group, s.name);
      const at = Math.max(s.dueAt, retryAfter.get(key) ?? 0);
      if (!inFlight.has(key) && (next === undefined || at < next)) next = at;
    }
    if (next === undefined) return;
    timer = setTimeout(
      () => {
        fireDue();
        arm();
      },
      Math.min(Math.max(0, next - Date.now()), MAX_TIMER_MS),
    );
    timer.unref();
  }

  /** A schedule was made or removed: deliver what is due, and wait for the new earliest one. */
  const changed = () => {
    if (clock.mode === 'real') arm();
    else setImmediate(fireDue);
  };

  if (clock.mode === 'manual') {
    clock.addSource({
      nextDue: (now) => {
        if (closed) return undefined;
        let next: number | undefined;
        for (const s of pending()) if (s.dueAt > now && (next === undefined || s.dueAt < next)) next = s.dueAt;
        return next;
      },
    });
    clock.onMoved(fireDue);
  }

  // ---- the operations -----------------------------------------------------------------------
  const groupOf = (name: string | undefined, member: string) => {
    const group = checkName(name ?? 'default', member);
    if (!groups.has(group)) throw notFound(`Schedule group ${group} does not exist.`);
    return group;
  };

  function targetOf(input: Input): Target {
    const target = object(input, 'Target', 'target', true)!;
    const arn = string(target, 'Arn', 'target.arn', true);
    if (arn.length < 1 || arn.length > 1600)
      throw breaks(arn, 'target.arn', 'Member must have length less than or equal to 1600');
    if (!localQueue.test(arn))
      throw invalid(
        `The local EventBridge Scheduler delivers to queues of the local SQS only: Target.Arn must be arn:aws:sqs:${region}:${account}:<queue name>, not ${arn}`,
      );
    const role = string(target, 'RoleArn', 'target.roleArn', true);
    if (!ROLE_ARN.test(role))
      throw breaks(
        role,
        'target.roleArn',
        'Member must satisfy regular expression pattern: ^arn:aws(-[a-z]+)?:iam::\\d{12}:role\\/[\\w+=,.@\\/-]+$',
      );
    const body = string(target, 'Input', 'target.input');
    if (body === undefined || body.length === 0)
      throw invalid('The local EventBridge Scheduler needs Target.Input: it is the body of the SQS message it sends');
    const dead = object(target, 'DeadLetterConfig', 'target.deadLetterConfig');
    const deadArn = dead && string(dead, 'Arn', 'target.deadLetterConfig.arn');
    if (deadArn !== undefined && !QUEUE_ARN.test(deadArn))
      throw breaks(
        deadArn,
        'target.deadLetterConfig.arn',
        'Member must satisfy regular expression pattern: ^arn:aws(-[a-z]+)?:sqs:[a-z0-9\\-]+:\\d{12}:[a-zA-Z0-9\\-_]+$',
      );
    const retry = object(target, 'RetryPolicy', 'target.retryPolicy');
    const retryPolicy = retry && {
      MaximumEventAgeInSeconds: whole(
        retry,
        'MaximumEventAgeInSeconds',
        'target.retryPolicy.maximumEventAgeInSeconds',
        60,
        86_400,
      ),
      MaximumRetryAttempts: whole(retry, 'MaximumRetryAttempts', 'target.retryPolicy.maximumRetryAttempts', 0, 185),
    };
    const sqsParameters = object(target, 'SqsParameters', 'target.sqsParameters');
    const groupId = sqsParameters && string(sqsParameters, 'MessageGroupId', 'target.sqsParameters.messageGroupId');
    for (const other of OTHER_TARGET_PARAMETERS)
      if (target[other] !== undefined) throw invalid(`${other} is not valid for an Amazon SQS target.`);
    return {
      Arn: arn,
      RoleArn: role,
      Input: body,
      ...(deadArn !== undefined ? { DeadLetterConfig: { Arn: deadArn } } : {}),
      ...(retryPolicy ? { RetryPolicy: retryPolicy } : {}),
      ...(groupId !== undefined ? { SqsParameters: { MessageGroupId: groupId } } : {}),
    };
  }

  function flexibleWindowOf(input: Input): Schedule['flexibleTimeWindow'] {
    const window = object(input, 'FlexibleTimeWindow', 'flexibleTimeWindow', true)!;
    const mode = string(window, 'Mode', 'flexibleTimeWindow.mode', true);
    if (mode !== 'OFF' && mode !== 'FLEXIBLE')
      throw breaks(mode, 'flexibleTimeWindow.mode', 'Member must satisfy enum value set: [OFF, FLEXIBLE]');
    const minutes = whole(window, 'MaximumWindowInMinutes', 'flexibleTimeWindow.maximumWindowInMinutes', 1, 1440);
    if (mode === 'FLEXIBLE' && minutes === undefined)
      throw invalid('MaximumWindowInMinutes is required when the flexible time window mode is FLEXIBLE.');
    if (mode === 'OFF' && minutes !== undefined)
      throw invalid('MaximumWindowInMinutes cannot be set when the flexible time window mode is OFF.');
    return minutes === undefined ? { Mode: mode } : { Mode: mode, MaximumWindowInMinutes: minutes };
  }

  function enumOf<T extends string>(input: Input, member: string, path: string, values: readonly T[], fallback: T): T {
    const value = string(input, member, path) ?? fallback;
    if (!values.includes(value as T))
      throw breaks(value, path, `Member must satisfy enum value set: [${values.join(', ')}]`);
    return value as T;
  }

  const timestamp = (input: Input, member: string) => {
    const value = input[member];
    if (value === undefined || value === null) return undefined;
    if (typeof value !== 'number') throw new SchedulerFault('SerializationException', `${member} must be a timestamp`);
    return value * 1000;
  };

  function createSchedule(name: string, input: Input): Input {
    checkName(name, 'name');
    const group = groupOf(string(input, 'GroupName', 'groupName'), 'groupName');
    const expression = string(input, 'ScheduleExpression', 'scheduleExpression', true);
    if (expression.length > 256)
      throw breaks(expression, 'scheduleExpression', 'Member must have length less than or equal to 256');
    const dueAt = dueTime(expression);
    const timezone = string(input, 'ScheduleExpressionTimezone', 'scheduleExpressionTimezone') ?? 'UTC';
    if (!UTC_ZONES.has(timezone))
      throw invalid(`The local EventBridge Scheduler evaluates at() in UTC only, not in ${timezone}`);
    const description = string(input, 'Description', 'description');
    if (description !== undefined && description.length > 512)
      throw breaks(description, 'description', 'Member must have length less than or equal to 512');
    const clientToken = string(input, 'ClientToken', 'clientToken');
    const startDate = timestamp(input, 'StartDate');
    const endDate = timestamp(input, 'EndDate');
    const kmsKeyArn = string(input, 'KmsKeyArn', 'kmsKeyArn');
    if (clientToken !== undefined && !CLIENT_TOKEN.test(clientToken))
      throw breaks(clientToken, 'clientToken', 'Member must satisfy regular expression pattern: ^[a-zA-Z0-9-_]+$');
    const schedule: Schedule = {
      group,
      name,
      expression,
      timezone,
      dueAt,
      state: enumOf(input, 'State', 'state', ['ENABLED', 'DISABLED'] as const, 'ENABLED'),
      target: targetOf(input),
      flexibleTimeWindow: flexibleWindowOf(input),
      actionAfterCompletion: enumOf(
        input,
        'ActionAfterCompletion',
        'actionAfterCompletion',
        ['NONE', 'DELETE'] as const,
        'NONE',
      ),
      ...(description !== undefined ? { description } : {}),
      ...(startDate !== undefined ? { startDate } : {}),
      ...(endDate !== undefined ? { endDate } : {}),
      ...(kmsKeyArn !== undefined ? { kmsKeyArn } : {}),
      ...(clientToken !== undefined ? { clientToken } : {}),
      created: clock.now(),
      modified: clock.now(),
    };
    const key = keyOf(group, name);
    const existing = schedules.get(key);
    if (existing) {
      if (clientToken !== undefined && existing.clientToken === clientToken)
        return { ScheduleArn: scheduleArn(existing) };
      throw new SchedulerFault('ConflictException', `Schedule ${name} already exists.`, 409);
    }
    schedules.set(key, schedule);
    journal.record({ t: 'schedule', s: schedule });
    journal.flush(); // journaled before the answer
    changed();
    return { ScheduleArn: scheduleArn(schedule) };
  }

  const scheduleNamed = (name: string, groupName: string | undefined) => {
    checkName(name, 'name');
    const group = groupOf(groupName, 'groupName');
    const schedule = schedules.get(keyOf(group, name));
    if (!schedule) throw notFound(`Schedule ${name} does not exist.`);
    return schedule;
  };

  function getSchedule(name: string, query: URLSearchParams): Input {
    const s = scheduleNamed(name, query.get('groupName') ?? undefined);
    return {
      Arn: scheduleArn(s),
      GroupName: s.group,
      Name: s.name,
      ScheduleExpression: s.expression,
      ScheduleExpressionTimezone: s.timezone,
      State: s.state,
      CreationDate: seconds(s.created),
      LastModificationDate: seconds(s.modified),
      Target: s.target,
      FlexibleTimeWindow: s.flexibleTimeWindow,
      ActionAfterCompletion: s.actionAfterCompletion,
      ...(s.description !== undefined ? { Description: s.description } : {}),
      ...(s.startDate !== undefined ? { StartDate: seconds(s.startDate) } : {}),
      ...(s.endDate !== undefined ? { EndDate: seconds(s.endDate) } : {}),
      ...(s.kmsKeyArn !== undefined ? { KmsKeyArn: s.kmsKeyArn } : {}),
    };
  }

  function deleteSchedule(name: string, query: URLSearchParams): Input {
    const s = scheduleNamed(name, query.get('groupName') ?? undefined);
    const token = query.get('clientToken');
    if (token !== null && !CLIENT_TOKEN.test(token))
      throw breaks(token, 'clientToken', 'Member must satisfy regular expression pattern: ^[a-zA-Z0-9-_]+$');
    schedules.delete(keyOf(s.group, s.name));
    retryAfter.delete(keyOf(s.group, s.name));
    journal.record({ t: 'delete', group: s.group, name: s.name });
    journal.flush();
    changed();
    return {};
  }

  function listSchedules(query: URLSearchParams): Input {
    const groupName = query.get('ScheduleGroup') ?? undefined;
    const group = groupName === undefined ? undefined : groupOf(groupName, 'groupName');
    const prefix = query.get('NamePrefix') ?? undefined;
    if (prefix !== undefined) checkName(prefix, 'namePrefix');
    const state = query.get('State') ?? undefined;
    if (state !== undefined && state !== 'ENABLED' && state !== 'DISABLED')
      throw breaks(state, 'state', 'Member must satisfy enum value set: [ENABLED, DISABLED]');
    const maxText = query.get('MaxResults');
    const max = maxText === null ? MAX_LIST_RESULTS : Number(maxText);
    if (!Number.isInteger(max) || max < 1 || max > MAX_LIST_RESULTS)
      throw breaks(maxText, 'maxResults', `Member must have value between 1 and ${MAX_LIST_RESULTS}`);
    const token = query.get('NextToken');
    let after = '';
    if (token !== null) {
      after = Buffer.from(token, 'base64url').toString('utf8');
      if (!after.includes('/')) throw invalid('The NextToken is not valid.');
    }
    const matching = [...schedules.values()]
      .filter(
        (s) =>
          (group === undefined || s.group === group) &&
          (prefix === undefined || s.name.startsWith(prefix)) &&
          (state === undefined || s.state === state),
      )
      .map((s) => ({ key: keyOf(s.group, s.name), s }))
      .sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0))
      .filter(({ key }) => key > after);
    const page = matching.slice(0, max);
    return {
      Schedules: page.map(({ s }) => ({
        Arn: scheduleArn(s),
        Name: s.name,
        GroupName: s.group,
        State: s.state,
        CreationDate: seconds(s.created),
        LastModificationDate: seconds(s.modified),
        Target: { Arn: s.target.Arn },
      })),
      ...(matching.length > max ? { NextToken: Buffer.from(page[page.length - 1].key).toString('base64url') } : {}),
    };
  }

  // ---- the protocol -------------------------------------------------------------------------
  const answer = (response: ServerResponse, status: number, body: unknown, errorType?: string) => {
    response.writeHead(status, {
      'content-type': 'application/json',
      'x-amzn-requestid': randomUUID(),
      ...(errorType ? { 'x-amzn-errortype': errorType } : {}),
    });
    response.end(JSON.stringify(body));
  };

  const route = (method: string, path: string, query: URLSearchParams, body: Buffer): Input => {
    const segments = path.split('/');
    if (path === '/schedules' && method === 'GET') return listSchedules(query);
    if (segments.length === 3 && segments[1] === 'schedules') {
      let name: string;
      try {
        name = decodeURIComponent(segments[2]);
      } catch {
        throw breaks(segments[2], 'name', 'Member must satisfy regular expression pattern: [0-9a-zA-Z-_.]+');
      }
      if (method === 'GET') return getSchedule(name, query);
      if (method === 'DELETE') return deleteSchedule(name, query);
      if (method === 'POST') {
        let input: unknown;
        try {
          input = JSON.parse(body.toString('utf8') || '{}');
        } catch {
          throw new SchedulerFault('SerializationException', 'The request body is not JSON');
        }
        if (typeof input !== 'object' || input === null || Array.isArray(input))
          throw new SchedulerFault('SerializationException', 'The request body is not a JSON object');
        return createSchedule(name, input as Input);
      }
    }
    throw new SchedulerFault(
      'UnknownOperationException',
      `The local EventBridge Scheduler does not support ${method} ${path} (CreateSchedule, GetSchedule, DeleteSchedule, ListSchedules)`,
      404,
    );
  };

  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of request) {
      size += (chunk as Buffer).length;
      if (size <= MAX_REQUEST_BYTES) chunks.push(chunk as Buffer);
    }
    try {
      const body = Buffer.concat(chunks);
      const verdict = await verifySignature(request, credentials, { service: 'scheduler', uriEscapePath: true, body });
      if (!verdict.ok) throw new SchedulerFault(REST_JSON_AUTH_ERRORS[verdict.reason], verdict.message, 403);
      if (size > MAX_REQUEST_BYTES) throw invalid(`The request is larger than ${MAX_REQUEST_BYTES} bytes`);
      if (closed)
        throw new SchedulerFault('InternalServerException', 'The local EventBridge Scheduler is stopping', 500);
      const [path, rawQuery = ''] = (request.url ?? '/').split('?');
      answer(response, 200, route(request.method ?? 'GET', path, new URLSearchParams(rawQuery), body));
    } catch (error) {
      const fault =
        error instanceof SchedulerFault
          ? error
          : new SchedulerFault(
              'InternalServerException',
              `The local EventBridge Scheduler failed: ${String(error)}`,
              500,
            );
      answer(response, fault.status, { Message: fault.message }, fault.type);
    }
  };

  const server = createServer((request, response) => void handle(request, response));
  const host = options.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port ?? 0, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;

  return {
    server,
    endpoint: `http://${host.includes(':') ? `[${host}]` : host}:${port}`,
    port,
    ensureGroup: (name) => {
      checkName(name, 'name');
      if (!groups.has(name)) {
        groups.set(name, clock.now());
        journal.record({ t: 'group', name, created: clock.now() });
        journal.flush();
      }
      return groupArn(name);
    },
    start: () => {
      started = true;
      fireDue();
      arm();
    },
    busy: (before) => pending().filter((s) => s.dueAt <= before).length,
    later: (before) => pending().filter((s) => s.dueAt > before).length,
    delivered: () => deliveries,
    close: async () => {
      closed = true;
      clearTimeout(timer);
      await Promise.allSettled(inFlight.values()); // their completions journaled before the journal closes
      journal.close();
      sqs.destroy();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}
