/**
 * Every AWS operation the service's functions make, with the IAM actions AWS evaluates for it
 * beyond the operation's own: the Service Authorization Reference's "Dependent actions" column and
 * the rules around an action that its table states elsewhere. The local grants check
 * (./needs.ts) requires these too, so a call that needs more than its own action fails a local test
 * before it is an AccessDenied (a 500) on AWS. test/unit/aws-operations.test.ts reads the code for
 * every SDK command and hand-signed call and fails when one is missing here, so an operation
 * cannot be added without deciding what it needs.
 *
 * The rules that apply to what the service calls:
 * - Tag on create: a create call that carries `Tags` is also authorized as `TagResource` on the
 *   new resource (SES v2: CreateTenant, CreateConfigurationSet, CreateEmailIdentity,
 *   CreateContactList, ...; the call fails whole without it).
 * - S3 reads of a missing key: without `s3:ListBucket` on the bucket, S3 answers 403 AccessDenied
 *   instead of 404 NoSuchKey (GetObject and HeadObject, "Permissions"). That one depends on the
 *   object, not the call, so ./needs.ts applies it with the local S3's view of the bucket.
 * - Passing a role: Scheduler's CreateSchedule names the role its target is invoked as
 *   (`Target.RoleArn`), and IAM authorizes that as `iam:PassRole` on the role for the caller (the
 *   Service Authorization Reference's dependent action; the stack grants it with
 *   `iam:PassedToService` = scheduler.amazonaws.com). Declaring `scheduler:CreateSchedule` in
 *   `needs.scheduler` grants it on the service's schedule role (`iam:PassRole:scheduler-role`,
 *   functions/needs.ts `grantedActions`), so a schedule passing any other role is refused.
 * Every other operation listed needs exactly its own action (DynamoDB items of a transaction are
 * authorized item by item, ./needs.ts).
 */

import { PASS_SCHEDULE_ROLE_GRANT } from '../../functions/needs';
import type { AwsCall } from '../../shared/platform/aws/call-guard';
import { SCHEDULE_VARIABLES } from '../../shared/platform/aws/schedule-target';

type Input = Record<string, unknown>;
/** An action an operation needs besides its own: the grant that allows it (as `grantedActions` names it), the IAM action and its resource. */
export interface DependentAction {
  grant: string;
  action: string;
  resource: string;
}
/** The actions an operation needs besides its own, from its input: an IAM action (its grant, on the operation) or one on a resource of its own. */
type Dependent = (input: Input) => (string | DependentAction)[];

const none: Dependent = () => [];
/** `TagResource` of the service when the create call carries tags. */
const tagOnCreate =
  (service: string): Dependent =>
  (input) =>
    Array.isArray(input.Tags) && input.Tags.length > 0 ? [`${service}:TagResource`] : [];

/** `iam:PassRole` on the role a create call hands its target (`Target.RoleArn`): the schedule role's grant, or one nobody has. */
const passTargetRole: Dependent = (input) => {
  const role = (input.Target as { RoleArn?: unknown } | undefined)?.RoleArn;
  if (typeof role !== 'string') return [];
  const grant = role === process.env[SCHEDULE_VARIABLES.roleArn] ? PASS_SCHEDULE_ROLE_GRANT : `iam:PassRole:${role}`;
  return [{ grant, action: 'iam:PassRole', resource: role }];
};

/** By service, the operations the functions call (as the SDK's command or the hand-signed call names them, without `Command`). */
export const AWS_OPERATIONS: Record<AwsCall['service'], Record<string, Dependent>> = {
  // lib-dynamodb's commands reach the guard as the client's: GetCommand is GetItem, and so on.
  dynamodb: {
    GetItem: none,
    PutItem: none,
    UpdateItem: none,
    Query: none,
    BatchGetItem: none,
    BatchWriteItem: none,
    TransactWriteItems: none,
  },
  sqs: { SendMessageBatch: none, ChangeMessageVisibility: none, GetQueueAttributes: none },
  ses: {
    CreateTenant: tagOnCreate('ses'),
    CreateConfigurationSet: tagOnCreate('ses'),
    CreateEmailIdentity: tagOnCreate('ses'),
    CreateConfigurationSetEventDestination: none,
    CreateTenantResourceAssociation: none,
    DeleteConfigurationSet: none,
    DeleteEmailIdentity: none,
    GetAccount: none,
    GetEmailIdentity: none,
    GetReputationEntity: none,
    GetTenant: none,
    PutConfigurationSetDeliveryOptions: none,
    PutConfigurationSetSendingOptions: none,
    PutConfigurationSetTrackingOptions: none,
    PutEmailIdentityMailFromAttributes: none,
    SendEmail: none,
    UpdateConfigurationSetEventDestination: none,
    UpdateReputationEntityPolicy: none,
  },
  // S3 PutObject with tags (`x-amz-tagging`) would need s3:PutObjectTagging; the service sends none.
  s3: { GetObject: none, HeadObject: none, PutObject: none, DeleteObject: none },
  kms: { GenerateDataKey: none, Decrypt: none },
  scheduler: { CreateSchedule: passTargetRole, DeleteSchedule: none },
};

/** The lib-dynamodb command names and the DynamoDB operations they send. */
export const DOCUMENT_COMMANDS: Record<string, string> = {
  Get: 'GetItem',
  Put: 'PutItem',
  Update: 'UpdateItem',
  Delete: 'DeleteItem',
  Query: 'Query',
  BatchGet: 'BatchGetItem',
  BatchWrite: 'BatchWriteItem',
  TransactWrite: 'TransactWriteItems',
  TransactGet: 'TransactGetItems',
};

/** The actions `operation` needs besides its own (none for an operation not listed: the unit test fails on those instead of every call). */
export function dependentActions(
  service: keyof typeof AWS_OPERATIONS,
  operation: string,
  input: Input,
): (string | DependentAction)[] {
  return AWS_OPERATIONS[service][operation]?.(input) ?? [];
}
