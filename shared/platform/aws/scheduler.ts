/**
 * The two EventBridge Scheduler calls the service makes, for the automations' waits past SQS's
 * 15-minute delay: CreateSchedule (a one-time schedule that sends a message to the step queue at
 * a time, then deletes itself) and DeleteSchedule (one no longer wanted).
 *
 * Why not `@aws-sdk/client-scheduler`: for the same reason as S3 (./s3.ts) and KMS (./kms.ts), two
 * REST-JSON calls signed with the SDK's own SigV4 signer cost a few hundred bytes, the client tens
 * of KB in every function that schedules. test/unit/scheduler.test.ts checks each request against
 * what the real client sends, and test/integration/local-scheduler.test.ts the local stand-in
 * (local/aws/scheduler.ts) against the real client.
 *
 * Every schedule is created in `SCHEDULE_GROUP_NAME`, sends its body to `SCHEDULE_TARGET_ARN` as
 * `SCHEDULE_ROLE_ARN`, and goes to `SCHEDULE_DLQ_ARN` when every retry failed (./schedule-target.ts);
 * the endpoint is the SDK's own `AWS_ENDPOINT_URL_SCHEDULER` when set, else the regional one.
 *
 * - The time is rounded up to the whole second (`at(yyyy-mm-ddThh:mm:ss)`, UTC): a schedule never
 *   fires before the time it was asked for. Scheduler fires a one-time schedule within the minute
 *   of its time (`FlexibleTimeWindow` OFF: "60 second precision"), so up to 59 s after it.
 * - Retries: up to 185 attempts over 24 hours (`RETRY_POLICY`, Scheduler's longest), then the
 *   dead-letter queue with its alarm: a failed SQS send is a passing fault, worth waiting out.
 * - Names are the caller's and deterministic (`SCHEDULE_NAME_PATTERN`, at most
 *   `MAX_SCHEDULE_NAME_LENGTH`): a schedule of that name still pending answers `exists` (Scheduler's
 *   ConflictException), so a redelivered message that schedules again does no harm. Once a
 *   schedule has fired it is deleted (`ActionAfterCompletion: DELETE`), and the same name schedules
 *   anew: a step is idempotent, so a second delivery of it is too. Each call has a fresh
 *   ClientToken, as the SDK gives one when none is set.
 */
import { randomUUID } from 'node:crypto';
import { SignatureV4 } from '@smithy/signature-v4';
import { checkAwsCall } from './call-guard';
import { awsRegion } from './region';
import { scheduleSetting } from './schedule-target';
import { Sha256 } from './sha256';
import { AwsCallError, signingCredentials } from './signed-calls';

/** Scheduler answered an error (`code`: `ValidationException`, `AccessDeniedException`, `ThrottlingException`...). */
export class SchedulerError extends AwsCallError {
  override name = 'SchedulerError';
}

/** The longest schedule name Scheduler takes. */
export const MAX_SCHEDULE_NAME_LENGTH = 64;
/** The characters of a schedule name (Scheduler's `[0-9a-zA-Z-_.]+`); at most MAX_SCHEDULE_NAME_LENGTH of them. */
export const SCHEDULE_NAME_PATTERN = /^[0-9a-zA-Z_.-]+$/;

/** Up to Scheduler's most: 185 retries with exponential backoff, for at most 24 hours, then the DLQ. */
const RETRY_POLICY = { MaximumEventAgeInSeconds: 86_400, MaximumRetryAttempts: 185 };

type Operation = 'CreateSchedule' | 'DeleteSchedule';

let signer: SignatureV4 | undefined;
const schedulerSigner = () =>
  (signer ??= new SignatureV4({
    service: 'scheduler',
    region: awsRegion(),
    credentials: signingCredentials,
    sha256: Sha256,
  }));

interface Request {
  method: 'POST' | 'DELETE';
  name: string;
  /** the call's input as the SDK names it (`Name`, `GroupName`, `Target`...): what the call guard checks */
  input: Record<string, unknown>;
  query?: Record<string, string>;
  body?: Record<string, unknown>;
}

/** A Scheduler REST-JSON call, as the SDK sends it: the name in the path, the rest in the query or a JSON body. */
async function call(
  operation: Operation,
  request: Request,
): Promise<{ ok: true } | { ok: false; status: number; code: string; message: string }> {
  const { method, name, query = {}, body } = request;
  checkAwsCall({ service: 'scheduler', operation, input: request.input });
  const endpoint = new URL(process.env.AWS_ENDPOINT_URL_SCHEDULER || `https://scheduler.${awsRegion()}.amazonaws.com`);
  const path = `${endpoint.pathname.replace(/\/$/, '')}/schedules/${encodeURIComponent(name)}`;
  const text = body === undefined ? undefined : JSON.stringify(body);
  const signed = await schedulerSigner().sign({
    method,
    protocol: endpoint.protocol,
    hostname: endpoint.hostname,
    port: endpoint.port ? Number(endpoint.port) : undefined,
    path,
    query,
    headers: { host: endpoint.host, ...(text === undefined ? {} : { 'content-type': 'application/json' }) },
    body: text,
  });
  const headers = { ...signed.headers };
  delete headers.host; // fetch sets it from the URL
  const url = new URL(path, endpoint);
  for (const [key, value] of Object.entries(query)) url.searchParams.set(key, value);
  const response = await fetch(url, { method, headers, body: text, signal: AbortSignal.timeout(10_000) });
  const answer = await response.text();
  if (response.ok) return { ok: true };
  let parsed: { __type?: string; code?: string; Message?: string; message?: string } = {};
  try {
    parsed = JSON.parse(answer);
  } catch {}
  const code = (response.headers.get('x-amzn-errortype') ?? parsed.__type ?? parsed.code ?? `HTTP${response.status}`)
    .split(':')[0]
    .split('#')
    .pop() as string;
  return { ok: false, status: response.status, code, message: parsed.Message ?? parsed.message ?? '' };
}

const failed = (operation: Operation, error: { status: number; code: string; message: string }) =>
  new SchedulerError(error.status, error.code, `Scheduler ${operation}: ${error.code} ${error.message}`.trim());

/** Refuses a name Scheduler would refuse (a caller's bug, not a fault to retry). */
function checkName(name: string): void {
  if (name.length > MAX_SCHEDULE_NAME_LENGTH || !SCHEDULE_NAME_PATTERN.test(name))
    throw new Error(
      `schedule name ${JSON.stringify(name)}: 1 to ${MAX_SCHEDULE_NAME_LENGTH} of 0-9 a-z A-Z - _ . (SCHEDULE_NAME_PATTERN)`,
    );
}

/**
 * A one-time schedule `name` that sends `body` to the step queue at `at` (epoch ms, rounded up to
 * the second), then deletes itself: `created`, or `exists` when a schedule of that name is still
 * pending (the module comment).
 */
export async function scheduleMessage(input: {
  name: string;
  at: number;
  body: string;
}): Promise<'created' | 'exists'> {
  checkName(input.name);
  if (!Number.isFinite(input.at)) throw new Error(`schedule ${input.name}: at must be a time (epoch ms)`);
  if (input.body.length === 0) throw new Error(`schedule ${input.name}: the message body is empty`);
  const at = new Date(Math.ceil(input.at / 1000) * 1000).toISOString().slice(0, 19);
  const body = {
    ScheduleExpression: `at(${at})`,
    Target: {
      Arn: scheduleSetting('targetArn'),
      RoleArn: scheduleSetting('roleArn'),
      DeadLetterConfig: { Arn: scheduleSetting('dlqArn') },
      RetryPolicy: RETRY_POLICY,
      Input: input.body,
    },
    FlexibleTimeWindow: { Mode: 'OFF' },
    GroupName: scheduleSetting('group'),
    ScheduleExpressionTimezone: 'UTC',
    ClientToken: randomUUID(),
    ActionAfterCompletion: 'DELETE',
  };
  const outcome = await call('CreateSchedule', {
    method: 'POST',
    name: input.name,
    input: { Name: input.name, ...body },
    body,
  });
  if (outcome.ok) return 'created';
  if (outcome.code === 'ConflictException') return 'exists';
  throw failed('CreateSchedule', outcome);
}

/** Deletes the schedule `name` of the service's group: `deleted`, or `absent` when there is none (it fired, or never was). */
export async function deleteSchedule(name: string): Promise<'deleted' | 'absent'> {
  checkName(name);
  const GroupName = scheduleSetting('group');
  const ClientToken = randomUUID();
  const outcome = await call('DeleteSchedule', {
    method: 'DELETE',
    name,
    input: { Name: name, GroupName, ClientToken },
    query: { groupName: GroupName, clientToken: ClientToken },
  });
  if (outcome.ok) return 'deleted';
  if (outcome.code === 'ResourceNotFoundException') return 'absent';
  throw failed('DeleteSchedule', outcome);
}
