/**
 * IAM, locally: every AWS call a handler makes passes the call guard of its client
 * (shared/platform/aws/call-guard.ts); here the guard learns which function is running (from the
 * invocation, local/lambda/invoke.ts) and refuses, with the error AWS gives, any call the
 * function's `needs` (functions/needs.ts) do not grant. The stack makes the IAM policy from the
 * same declaration, so the two cannot disagree.
 *
 * What each call needs, as IAM evaluates it:
 * - DynamoDB: the action of the operation; a TransactWriteItems needs the action of each of its
 *   items (PutItem, UpdateItem, DeleteItem, ConditionCheckItem), a TransactGetItems GetItem. An
 *   action granted on some partitions only (`Needs.tableByKeys`, IAM's `dynamodb:LeadingKeys`)
 *   allows an item whose partition key matches one of its patterns.
 * - SQS: SendMessage (also for SendMessageBatch) on a queue the function names in `needs.queues`
 *   (recognised by the URL in its QUEUE_URL_<NAME> variable); the calls of consuming
 *   (ChangeMessageVisibility, DeleteMessage, ReceiveMessage) only on the function's own trigger
 *   queue, which its event source mapping grants.
 * - SES v2: `ses:<Operation>`; S3: GetObject (also HeadObject and presigned GETs), PutObject,
 *   DeleteObject, by the function's access to that bucket (inbound or content). A read of a key
 *   that does not exist is 403 AccessDenied unless the function may also list the bucket, as S3
 *   answers it (`missingObjectDenied`).
 * - Beyond the operation's own action, what AWS requires around it (tag on create: a call with
 *   `Tags` also needs TagResource): ./aws-operations.ts lists every operation the code makes.
 * - KMS: GenerateDataKey and Decrypt on the secrets key, and only with its encryption context
 *   (the stack's grant has that condition).
 * - EventBridge Scheduler: CreateSchedule and DeleteSchedule on the schedules of the service's
 *   group (SCHEDULE_GROUP_NAME) only; a CreateSchedule also needs `iam:PassRole` on the role it
 *   names (./aws-operations.ts), which declaring `scheduler:CreateSchedule` grants for the schedule
 *   role (SCHEDULE_ROLE_ARN) and no other, as the stack's PassRole statement does.
 *
 * Calls made outside any invocation (the runtime's own pollers, a test's setup) are not checked
 * (./invocation.ts installs the checker).
 * Every call a function makes is recorded, allowed or denied, for the test run's check of unused
 * grants (test/support/grants-check.ts): AWS_CALLS_LOG names the file, one line per first sight.
 */
import { appendFileSync, existsSync } from 'node:fs';
import { resolve, sep } from 'node:path';
import { grantedActions, mayListBucket, type SchedulerAction, scheduleGroupGrant } from '../../functions/needs';
import { queueUrlVariable } from '../../functions/workers';
import { SECRETS_KEY_CONTEXT, SECRETS_KEY_VARIABLE } from '../../shared/platform/aws/secrets-key';
import { SCHEDULE_VARIABLES } from '../../shared/platform/aws/schedule-target';
import type { AwsCall } from '../../shared/platform/aws/call-guard';
import { dependentActions } from './aws-operations';
import type { FunctionIdentity, Invocation } from './function-identity';
import { LOCAL_REGION } from '../settings';

const ACCOUNT = '000000000000';
const REGION = LOCAL_REGION;

interface Requirement {
  /** the grant's name as `grantedActions` writes it (`dynamodb:PutItem`, `sqs:SendMessage:send`) */
  grant: string;
  /** a DynamoDB item's partition key: a grant limited to keys of a pattern (`dynamodb:PutItem:RATE_LIMIT#*`) allows it too */
  leadingKey?: string;
  /** the IAM action and resource an AccessDenied message names */
  action: string;
  resource: string;
}

interface ItemParams {
  TableName?: string;
  Key?: Record<string, unknown>;
  Item?: Record<string, unknown>;
}

const TRANSACT_ITEM_ACTIONS: Record<string, string> = {
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  ConditionCheck: 'ConditionCheckItem',
  Get: 'GetItem',
};

function dynamoRequirements(operation: string, input: Record<string, unknown>): Requirement[] {
  const table = (name: unknown) =>
    `arn:aws:dynamodb:${REGION}:${ACCOUNT}:table/${String(name ?? process.env.TABLE_NAME)}`;
  /** The item's partition key as DynamoDB's `dynamodb:LeadingKeys` sees it (documents or attribute values). */
  const leadingKey = (params: ItemParams | undefined): string | undefined => {
    const pk = (params?.Key ?? params?.Item)?.PK as unknown;
    return typeof pk === 'string' ? pk : ((pk as { S?: string } | undefined)?.S ?? undefined);
  };
  const need = (action: string, params: ItemParams | undefined): Requirement => ({
    grant: `dynamodb:${action}`,
    action: `dynamodb:${action}`,
    resource: table(params?.TableName),
    leadingKey: leadingKey(params),
  });
  if (operation === 'TransactWriteItems' || operation === 'TransactGetItems') {
    return ((input.TransactItems ?? []) as Record<string, ItemParams>[]).flatMap((item) =>
      Object.entries(item).map(([kind, params]) => need(TRANSACT_ITEM_ACTIONS[kind] ?? kind, params)),
    );
  }
  if (operation === 'BatchGetItem' || operation === 'BatchWriteItem') {
    return Object.keys((input.RequestItems ?? {}) as object).map((name) => need(operation, { TableName: name }));
  }
  return [need(operation, input as ItemParams)];
}

const CONSUMER_CALLS = new Set([
  'ReceiveMessage',
  'DeleteMessage',
  'DeleteMessageBatch',
  'ChangeMessageVisibility',
  'ChangeMessageVisibilityBatch',
  'GetQueueAttributes',
]);

function sqsRequirement(fn: FunctionIdentity, operation: string, input: Record<string, unknown>): Requirement {
  const url = String(input.QueueUrl ?? '');
  const queueName = url.split('/').pop() ?? url;
  const resource = `arn:aws:sqs:${REGION}:${ACCOUNT}:${queueName}`;
  if (operation === 'SendMessage' || operation === 'SendMessageBatch') {
    const named = (fn.needs.queues ?? []).find((name) => process.env[queueUrlVariable(name)] === url);
    return { grant: `sqs:SendMessage:${named ?? queueName}`, action: 'sqs:SendMessage', resource };
  }
  const action = `sqs:${operation.replace(/Batch$/, '')}`;
  // the event source mapping's grant: the function's own trigger queue only
  const own = CONSUMER_CALLS.has(operation) && fn.triggerQueueUrl !== undefined && fn.triggerQueueUrl === url;
  return { grant: own ? 'trigger' : action, action, resource };
}

const S3_ACTIONS: Record<string, string> = {
  GetObject: 's3:GetObject',
  HeadObject: 's3:GetObject',
  PutObject: 's3:PutObject',
  DeleteObject: 's3:DeleteObject',
};

const bucketKind = (bucket: unknown): 'content' | 'inbound' =>
  bucket === process.env.CONTENT_BUCKET ? 'content' : 'inbound';

/** Whether an object is in the local S3 (the runtime installs its view of the buckets: `installObjectLookup`); unknown without one. */
let objectLookup: ((bucket: string, key: string) => boolean) | undefined;

/** For the local runtime: the local S3's folder (`<root>/<bucket>/<key>`), where the grants check sees whether a key exists. */
export function installObjectLookup(root: string): void {
  const top = resolve(root);
  objectLookup = (bucket, key) => {
    const path = resolve(top, bucket, key);
    return path.startsWith(top + sep) && existsSync(path);
  };
}

/**
 * S3's rule for a read of a key that does not exist (GetObject/HeadObject, "Permissions"): 404
 * NoSuchKey if the caller may `s3:ListBucket` the bucket, else 403 AccessDenied, so that a caller
 * cannot learn which keys exist. The error a function without list access gets for a missing key.
 */
function missingObjectDenied(
  fn: FunctionIdentity,
  operation: string,
  input: Record<string, unknown>,
): Error | undefined {
  if ((operation !== 'GetObject' && operation !== 'HeadObject') || !objectLookup) return undefined;
  const bucket = bucketKind(input.Bucket);
  const access = bucket === 'content' ? fn.needs.contentBucket : fn.needs.inboundBucket;
  if (!access || mayListBucket(access) || objectLookup(String(input.Bucket), String(input.Key))) return undefined;
  record(fn, `s3:ListBucket:${bucket}`, 'denied');
  return Object.assign(new Error('Access Denied'), {
    name: 'AccessDenied',
    Code: 'AccessDenied',
    $fault: 'client',
    $metadata: { httpStatusCode: 403 },
  });
}

/** `kms:Decrypt:secrets` for a call on the secrets key with its context; anything else is a grant no function has. */
function kmsRequirement(operation: string, input: Record<string, unknown>): Requirement {
  const action = `kms:${operation}`;
  const keyArn = process.env[SECRETS_KEY_VARIABLE];
  const context = JSON.stringify(input.EncryptionContext ?? {});
  const onSecretsKey = input.KeyId === keyArn && context === JSON.stringify(SECRETS_KEY_CONTEXT);
  return {
    grant: onSecretsKey ? `${action}:secrets` : `${action}:${String(input.KeyId)}:${context}`,
    action,
    resource: String(input.KeyId ?? keyArn),
  };
}

/** `scheduler:CreateSchedule:group` for a schedule of the service's group; another group's is a grant no function has. */
function schedulerRequirement(operation: string, input: Record<string, unknown>): Requirement {
  const action = `scheduler:${operation}` as SchedulerAction;
  const group = String(input.GroupName ?? 'default');
  const ours = group === process.env[SCHEDULE_VARIABLES.group];
  return {
    grant: ours ? scheduleGroupGrant(action) : `${scheduleGroupGrant(action)}/${group}`,
    action,
    resource: `arn:aws:scheduler:${REGION}:${ACCOUNT}:schedule/${group}/${String(input.Name)}`,
  };
}

export function requirementsOf(fn: FunctionIdentity, call: AwsCall): Requirement[] {
  const input = (call.input ?? {}) as Record<string, unknown>;
  const operation = call.operation.replace(/Command$/, ''); // the SDK's command name: `GetItemCommand`
  const dependent = dependentActions(call.service, operation, input).map((action) =>
    typeof action === 'string' ? { grant: action, action, resource: `${call.service}:${operation}` } : action,
  );
  return [...ownRequirements(fn, call.service, operation, input), ...dependent];
}

function ownRequirements(
  fn: FunctionIdentity,
  service: AwsCall['service'],
  operation: string,
  input: Record<string, unknown>,
): Requirement[] {
  switch (service) {
    case 'dynamodb':
      return dynamoRequirements(operation, input);
    case 'sqs':
      return [sqsRequirement(fn, operation, input)];
    case 'ses':
      return [
        { grant: `ses:${operation}`, action: `ses:${operation}`, resource: `arn:aws:ses:${REGION}:${ACCOUNT}:*` },
      ];
    case 's3': {
      const action = S3_ACTIONS[operation] ?? `s3:${operation}`;
      const bucket = bucketKind(input.Bucket);
      const requirement = { grant: `${action}:${bucket}`, action, resource: `arn:aws:s3:::${String(input.Bucket)}/*` };
      // S3 answers a read of a missing key 403 unless the caller may list the bucket (see missingObjectDenied)
      return [requirement];
    }
    case 'kms':
      return [kmsRequirement(operation, input)];
    case 'scheduler':
      return [schedulerRequirement(operation, input)];
  }
}

/** The error AWS answers a call its role does not allow (the SDK's shape: name, $fault, $metadata). */
export function accessDenied(service: AwsCall['service'], fn: FunctionIdentity, requirement: Requirement): Error {
  const message =
    `User: arn:aws:sts::${ACCOUNT}:assumed-role/${fn.name}Role/${fn.name} is not authorized to perform: ${requirement.action} ` +
    `on resource: ${requirement.resource} because no identity-based policy allows the ${requirement.action} action`;
  const name = service === 's3' ? 'AccessDenied' : 'AccessDeniedException';
  return Object.assign(new Error(message), {
    name,
    Code: name,
    $fault: 'client',
    $metadata: { httpStatusCode: service === 'dynamodb' ? 400 : 403 },
  });
}

/** A call of an invocation that Lambda has already ended (timed out): the process is frozen or gone on AWS. */
function killed(fn: FunctionIdentity): Error {
  return Object.assign(
    new Error(`${fn.name}: this invocation timed out and was stopped; its calls after the timeout never reach AWS`),
    { name: 'InvocationTimedOut' },
  );
}

const recorded = new Set<string>();

/** One line per (function, grant, outcome) the first time this process sees it. */
function record(fn: FunctionIdentity, grant: string, outcome: 'allowed' | 'denied'): void {
  const line = `${fn.name}\t${grant}\t${outcome}`;
  if (recorded.has(line)) return;
  recorded.add(line);
  const file = process.env.AWS_CALLS_LOG;
  if (file) appendFileSync(file, `${line}\n`);
  if (outcome === 'denied')
    console.error(
      JSON.stringify({ level: 'ERROR', message: "AWS call denied by the function's needs", function: fn.name, grant }),
    );
}

/** `*` of a `dynamodb:LeadingKeys` pattern (IAM's StringLike) as a regular expression. */
const keyPattern = (pattern: string) =>
  new RegExp(
    `^${pattern
      .split('*')
      .map((part) => part.replace(/[.+?^${}()|[\]\\]/g, '\\$&'))
      .join('.*')}$`,
  );

/** The grant that allows `requirement`: the action itself, or the action on partition keys of patterns (`|`-separated) one of which its item's key matches. */
function grantAllowing(granted: readonly string[], requirement: Requirement): string | undefined {
  if (granted.includes(requirement.grant)) return requirement.grant;
  const key = requirement.leadingKey;
  if (key === undefined) return undefined;
  const prefix = `${requirement.grant}:`;
  return granted.find(
    (grant) =>
      grant.startsWith(prefix) &&
      grant
        .slice(prefix.length)
        .split('|')
        .some((pattern) => keyPattern(pattern).test(key)),
  );
}

/** Throws what AWS would answer when `invocation` may not make `call`; records the call either way. */
export function checkCall(invocation: Invocation, call: AwsCall): void {
  const { fn } = invocation;
  if (invocation.timedOut) throw killed(fn);
  const granted = grantedActions(fn.needs);
  for (const requirement of requirementsOf(fn, call)) {
    if (requirement.grant === 'trigger') continue; // the consumer's own queue: its event source mapping's grant
    const grant = grantAllowing(granted, requirement);
    if (!grant) {
      record(fn, requirement.grant, 'denied');
      throw accessDenied(call.service, fn, requirement);
    }
    record(fn, grant, 'allowed');
  }
  if (call.service === 's3') {
    const denied = missingObjectDenied(fn, call.operation, (call.input ?? {}) as Record<string, unknown>);
    if (denied) throw denied;
  }
}
