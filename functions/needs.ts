/**
 * What a function may do on AWS: one `needs` declaration per function (each route of
 * functions/routes.ts, each worker of functions/workers.ts). The same data makes the function's
 * IAM policy in the stack (lib/email-service-stack.ts `grantNeeds`) and the local runtime's
 * refusal of any other call (local/lambda/needs.ts), so a grant that drifts from the code
 * fails a local test instead of answering 500 on AWS. The test run's teardown also fails when a
 * function is granted something no test made it use (test/support/grants-check.ts), unless its
 * `untested` entry says why.
 */

/** DynamoDB actions a function may be granted. A TransactWriteItems needs the per-item actions. */
export type TableAction =
  | 'GetItem'
  | 'BatchGetItem'
  /** unconditional puts and deletes of derived items only (table.ts `batchWrite`) */
  | 'BatchWriteItem'
  | 'Query'
  | 'PutItem'
  | 'UpdateItem'
  | 'DeleteItem'
  | 'ConditionCheckItem';

/** An SES v2 IAM action (`ses:CreateEmailIdentity`); granted on the resources it acts on (lib/api-function.ts `sesResources`). */
export type SesAction = `ses:${string}`;

/** An EventBridge Scheduler action (shared/platform/aws/scheduler.ts), granted on the schedules of the service's group only. */
export type SchedulerAction = 'scheduler:CreateSchedule' | 'scheduler:DeleteSchedule';

export interface Needs {
  /** table actions on the one table and its indexes */
  table?: readonly TableAction[];
  /**
   * table actions allowed only on items whose partition key matches one of the patterns (`*`: any
   * characters): IAM's `dynamodb:LeadingKeys` condition, and the same check locally. For the writes
   * the request pipeline makes beside a route that writes nothing of its own (functions/routes.ts
   * `routeNeeds`): a read-only route may count its rate window and log its request, nothing else.
   */
  tableByKeys?: Readonly<Partial<Record<TableAction, readonly string[]>>>;
  /** queues of functions/workers.ts the function sends messages to (sqs:SendMessage, QUEUE_URL_<NAME>) */
  queues?: readonly string[];
  /** SES actions the function calls; none means no SES permission at all */
  ses?: readonly SesAction[];
  /** the inbound mail bucket (lib/inbound.ts): `read` (GetObject, also what its presigned URLs need), `write` (PutObject: test mode's loopback) or `read-write`; INBOUND_BUCKET */
  inboundBucket?: 'read' | 'write' | 'read-write';
  /** the content bucket (lib/constructs/content-bucket.ts): `read` (GetObject) or `write` (PutObject: content is written once, never changed or deleted by code); CONTENT_BUCKET */
  contentBucket?: 'read' | 'write' | 'read-write';
  /**
   * the secrets key (shared/platform/secrets.ts): `encrypt` seals secrets (kms:GenerateDataKey), `decrypt`
   * opens them (kms:Decrypt), both with the key's encryption context only; SECRETS_KEY_ARN
   */
  secretsKey?: 'encrypt' | 'decrypt' | 'encrypt-decrypt';
  /**
   * one-time schedules (shared/platform/aws/scheduler.ts) in the service's schedule group, and only
   * there. `scheduler:CreateSchedule` also grants `iam:PassRole` on the schedule role (passed to
   * scheduler.amazonaws.com only), which IAM requires of a create that names the role its target
   * runs as. SCHEDULE_GROUP_NAME, SCHEDULE_TARGET_ARN, SCHEDULE_ROLE_ARN, SCHEDULE_DLQ_ARN
   */
  scheduler?: readonly SchedulerAction[];
  /** grants (as `grantedActions` names them) that no test exercises, each with the reason it is still granted */
  untested?: Readonly<Record<string, string>>;
}

/** The S3 object actions each kind of inbound bucket access grants (ListBucket too for read-write: lib/inbound.ts). */
export const BUCKET_ACTIONS = {
  read: ['s3:GetObject'],
  write: ['s3:PutObject'],
  'read-write': ['s3:GetObject', 's3:PutObject', 's3:DeleteObject'],
} as const;

/** The S3 object actions each kind of content bucket access grants. */
export const CONTENT_BUCKET_ACTIONS = {
  read: ['s3:GetObject'],
  write: ['s3:PutObject'],
  'read-write': ['s3:GetObject', 's3:PutObject'],
} as const;

/**
 * Whether a bucket access also grants `s3:ListBucket` on the bucket: S3 answers a read of a key that
 * does not exist 403 AccessDenied instead of 404 NoSuchKey to a caller that may not list the bucket
 * (GetObject/HeadObject, "Permissions"), and the service tells a missing object (an upload never
 * made, an attachment not fetched yet, a body the lifecycle expired) by its 404. So every access
 * that reads may list. No `s3:prefix` condition: the rule checks ListBucket without a prefix in
 * the request's context, so a condition on it would deny and bring the 403 back.
 */
export const mayListBucket = (access: 'read' | 'write' | 'read-write'): boolean => access !== 'write';

/** The KMS actions each kind of secrets key access grants. */
export const SECRETS_KEY_ACTIONS = {
  encrypt: ['kms:GenerateDataKey'],
  decrypt: ['kms:Decrypt'],
  'encrypt-decrypt': ['kms:Decrypt', 'kms:GenerateDataKey'],
} as const;

/** A Scheduler action's grant on the service's schedule group (`scheduler:CreateSchedule:group`); a call on another group is `...:group/<name>`, which nothing grants. */
export const scheduleGroupGrant = (action: SchedulerAction): string => `${action}:group`;
/** The grant of `iam:PassRole` on the schedule role, part of declaring `scheduler:CreateSchedule` (a create that passes another role is `iam:PassRole:<arn>`). */
export const PASS_SCHEDULE_ROLE_GRANT = 'iam:PassRole:scheduler-role';

/**
 * Every grant of a declaration under one name each, as the local runtime records calls:
 * `dynamodb:GetItem`, `dynamodb:UpdateItem:RATE_LIMIT#*|API_KEY_HASH#*` (an action on partition keys of those patterns only), `sqs:SendMessage:send` (action and queue), `ses:SendEmail`, `s3:GetObject:inbound` (action and bucket),
 * `kms:Decrypt:secrets` (action and key), `scheduler:CreateSchedule:group` (action on the service's schedule group) with
 * `iam:PassRole:scheduler-role`.
 */
export function grantedActions(needs: Needs): string[] {
  return [
    ...(needs.table ?? []).map((action) => `dynamodb:${action}`),
    // one grant for all of an action's patterns, as one IAM statement grants them
    ...Object.entries(needs.tableByKeys ?? {}).map(
      ([action, patterns]) => `dynamodb:${action}:${(patterns ?? []).join('|')}`,
    ),
    ...(needs.queues ?? []).map((queue) => `sqs:SendMessage:${queue}`),
    ...(needs.ses ?? []),
    ...(needs.inboundBucket ? BUCKET_ACTIONS[needs.inboundBucket].map((action) => `${action}:inbound`) : []),
    ...(needs.contentBucket ? CONTENT_BUCKET_ACTIONS[needs.contentBucket].map((action) => `${action}:content`) : []),
    ...(needs.secretsKey ? SECRETS_KEY_ACTIONS[needs.secretsKey].map((action) => `${action}:secrets`) : []),
    ...(needs.scheduler ?? []).map(scheduleGroupGrant),
    ...(needs.scheduler?.includes('scheduler:CreateSchedule') ? [PASS_SCHEDULE_ROLE_GRANT] : []),
  ].sort();
}

/** Lambda's timeout of a route's function: short, so a stuck request fails well before API Gateway's 30 s. */
export const ROUTE_TIMEOUT_SECONDS = 10;
/**
 * A route function's memory. Lambda gives CPU in proportion to memory (a full vCPU at 1,769 MB):
 * bench/function-memory.ts measured the routes' CPU and modeled it: at 512 MB the module part of a
 * cold start is about 170 ms instead of 340 and warm requests about half as long as at 256 MB,
 * for 0-7% more cost per request (the CPU part costs the same; only the waits cost double).
 */
export const ROUTE_MEMORY_MB = 512;
/** A queue, stream or schedule consumer's memory unless its declaration (functions/workers.ts `memoryMb`) says more. */
export const WORKER_MEMORY_MB = 256;

/**
 * The memory a function is deployed with, from its one declaration: a route's or worker's own
 * `memoryMb`, else ROUTE_MEMORY_MB or WORKER_MEMORY_MB. The stack sets MemorySize from these
 * (lib/constructs/http-api.ts, lib/constructs/workers.ts) and the local runtime checks every
 * invocation against the same figure (local/memory-watch.ts), so a handler that would not fit
 * on AWS fails the test run here instead of ending in Runtime.OutOfMemory there.
 */
export const routeMemoryMb = (route: { memoryMb?: number }): number => route.memoryMb ?? ROUTE_MEMORY_MB;
export const workerMemoryMb = (worker: { memoryMb?: number }): number => worker.memoryMb ?? WORKER_MEMORY_MB;
/** Queue, schedule and stream consumers may take longer than a request; SQS visibility must cover it. */
export const WORKER_TIMEOUT_SECONDS = 30;
