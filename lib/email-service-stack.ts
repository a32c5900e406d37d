/**
 * The whole service on AWS: the single table, and the constructs of lib/constructs/ around it:
 *
 * - `Queues` (queues.ts): every queue of functions/workers.ts with its DLQ and DLQ alarm;
 * - `SesEvents` (ses-events.ts): the topic SES publishes sending events to, feeding the feedback queues;
 * - `InboundMail` (lib/inbound.ts): the bucket, receipt rule set and topic of received mail;
 * - `ContentBucket` (content-bucket.ts): each email's content, written once;
 * - `Schedules` (schedules.ts): the EventBridge Scheduler group of the service's one-time schedules and the role they deliver as;
 * - `ServiceApi` (http-api.ts): the HTTP API of functions/routes.ts, one function per route in nested stacks;
 * - `Workers` (workers.ts): one function per worker of functions/workers.ts with its trigger;
 * - `Monitoring` (monitoring.ts): the alarm topic every alarm notifies, the service's alarms and its dashboard.
 *
 * The constructs make their functions through the stack (`makeFunction`), so `grantNeeds` stays
 * the one place where `needs` become IAM. The stack also keeps the cdk-nag acknowledgements and
 * the outputs. The region is the context's `region` (lib/region.ts: default ap-southeast-2); every
 * ARN and output follows the stack's, and the functions read theirs from AWS_REGION.
 */
import {
  App,
  CfnOutput,
  Duration,
  Names,
  RemovalPolicy,
  Stack,
  Validations,
  type CfnElement,
  type StackProps,
} from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import * as events from 'aws-cdk-lib/aws-events';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { Needs } from '../functions/needs';
import {
  AUTOMATION_STEPS_QUEUE,
  INBOUND_QUEUE,
  workerFunctionName,
  workers as workerDefinitions,
} from '../functions/workers';
import { ApiFunction } from './api-function';
import type { FunctionFactory, FunctionSpec } from './constructs/function-factory';
import { ContentBucket, emailRetentionDays } from './constructs/content-bucket';
import { Schedules } from './constructs/schedules';
import { ServiceApi } from './constructs/http-api';
import { type QueuePair, Queues } from './constructs/queues';
import { SesEvents } from './constructs/ses-events';
import { Monitoring } from './constructs/monitoring';
import { sesSendRate, Workers } from './constructs/workers';
import { InboundMail, inboundRetentionDays } from './inbound';
import { flagFromContext, wholeNumberFromContext } from './context';
import { deployRegion, RECEIVING_OVERRIDE } from './region';
import { tableDefinition } from './table-definition';
import { REPUTATION_POLICIES, type ReputationPolicy } from '../shared/domains/tenant-policies';

export const STACK_NAME = 'EmailService';

export class EmailServiceStack extends Stack implements FunctionFactory {
  readonly table: dynamodb.Table;
  readonly api: apigw.HttpApi;
  readonly apiUrl: string;
  /** every function of the stack by construct id, so later constructs (alarms, cdk-nag) reach them */
  readonly functions = new Map<string, ApiFunction>();
  /** the queues of functions/workers.ts by name, each with its DLQ */
  readonly queues: Map<string, QueuePair>;
  /** where every domain's configuration set publishes its SES events */
  readonly sesEventsTopic: sns.Topic;
  /** inbound mail: bucket, SES receipt rule set, notification topic (lib/inbound.ts) */
  readonly inbound: InboundMail;
  /** each email's content, written once (lib/constructs/content-bucket.ts) */
  readonly content: ContentBucket;
  /** the group of the service's one-time schedules and the role they deliver as (lib/constructs/schedules.ts) */
  readonly schedules: Schedules;
  /** wraps the data keys of the secrets the service keeps in its table (shared/platform/secrets.ts) */
  readonly secretsKey: kms.Key;
  /** the workers' functions and the stream-failures queue (lib/constructs/workers.ts) */
  readonly workers: Workers;
  /** the alarm topic, alarms and dashboard (lib/constructs/monitoring.ts) */
  readonly monitoring: Monitoring;
  /** the same queues as the construct: `named` (throws on a name functions/workers.ts lacks) and the send grant */
  private readonly queueSet: Queues;
  private readonly sesEvents: SesEvents;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    this.table = createTable(this, tableWarmThroughput(this, sesSendRate(this)));
    // `-c backupPlan=true`: off by default (point-in-time recovery covers 35 days)
    if (flagFromContext(this, 'backupPlan')) tableBackups(this, this.table);
    this.queueSet = new Queues(this, 'Queues');
    this.queues = this.queueSet.byName;
    this.sesEvents = new SesEvents(this, 'SesEvents', { queues: this.queueSet });
    this.sesEventsTopic = this.sesEvents.topic;
    this.inbound = new InboundMail(this, 'InboundMail', {
      queue: this.queueSet.named(INBOUND_QUEUE).queue,
      retentionDays: inboundRetentionDays(this),
    });
    this.content = new ContentBucket(this, 'Content', { retentionDays: emailRetentionDays(this) });
    this.schedules = new Schedules(this, 'Schedules', { target: this.queueSet.named(AUTOMATION_STEPS_QUEUE) });
    // Kept with the table: without it the sealed webhook secrets and unsubscribe key in the table do not open.
    this.secretsKey = new kms.Key(this, 'SecretsKey', {
      enableKeyRotation: true,
      description: 'Email service: secrets kept in the table (webhook signing secrets, unsubscribe key)',
      removalPolicy: RemovalPolicy.RETAIN,
    });

    // Everything a function may use exists from here on: the constructs below make functions.
    const api = new ServiceApi(this, 'Api', { functions: this });
    this.api = api.httpApi;
    this.apiUrl = api.url;
    this.workers = new Workers(this, 'Workers', {
      functions: this,
      queues: this.queueSet,
      table: this.table,
      apiUrl: this.apiUrl,
    });

    this.monitoring = new Monitoring(this, 'Monitoring', {
      table: this.table,
      api: this.api,
      queues: this.queueSet,
      functions: this.functions,
      sendRate: sesSendRate(this),
    });
    this.monitoring.notifyOnEveryAlarm(this); // last: every alarm exists by now

    this.acknowledgeNagFindings();

    new CfnOutput(this, 'ApiUrl', {
      value: this.apiUrl,
      description: 'Base URL for API clients (Resend SDK `baseUrl`)',
    });
    new CfnOutput(this, 'TableName', {
      value: this.table.tableName,
      description: 'Pass to `npm run api-key` to create the first API key',
    });
    new CfnOutput(this, 'ReceiptRuleSetName', {
      value: this.inbound.ruleSet.receiptRuleSetName,
      description: `Activate once for inbound mail: aws ses set-active-receipt-rule-set --rule-set-name <this> --region ${this.region}`,
    });
    new CfnOutput(this, 'InboundBucketName', {
      value: this.inbound.bucket.bucketName,
      description: 'Raw received messages and their attachments',
    });
    new CfnOutput(this, 'SesEventsTopicArn', {
      value: this.sesEventsTopic.topicArn,
      description:
        "Where every domain's configuration set publishes: npm run ses-reconcile -- --topic-arn <this> after a deploy that replaced it",
    });
    new CfnOutput(this, 'ContentBucketName', {
      value: this.content.bucket.bucketName,
      description: "Sent emails' content (html, text, headers, attachments), one object per email",
    });
  }

  /** A function for `functions/<handler>.ts` in `scope` (a construct of this stack or a nested stack), granted its needs. */
  makeFunction(
    scope: Construct,
    id: string,
    { handler, needs, timeout, memoryMb, consoleAssets }: FunctionSpec,
  ): ApiFunction {
    const fn = new ApiFunction(scope, id, { handler, timeout, memoryMb, consoleAssets });
    this.functions.set(id, fn);
    if (this.tracing && onSendPath(handler, needs)) traceActively(fn);
    return this.grantNeeds(fn, needs);
  }

  /** `-c tracing=true`: X-Ray active tracing on the send path's functions (onSendPath); off by default (docs/sizing.md: what it costs) */
  private get tracing(): boolean {
    return flagFromContext(this, 'tracing');
  }

  /**
   * The cdk-nag AwsSolutions findings this design accepts, each with its reason (test/infra/cdk-nag.infra.ts
   * runs the checks; anything not acknowledged here fails it). Per-function ones sit where the grant is made.
   */
  private acknowledgeNagFindings(): void {
    const acknowledge = (id: string, reason: string) => Validations.of(this).acknowledge({ id, reason });
    acknowledge(
      'AwsSolutions-APIG4',
      'every route checks the bearer API key in its function (shared/access/api.ts); the unauthenticated ones are public by design (health, OpenAPI, OAuth token, unsubscribe links)',
    );
    acknowledge(
      'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]',
      "AWS's minimal policy for a function to write its own logs; everything else is granted per action",
    );
    acknowledge(
      'AwsSolutions-L1',
      'Node.js 22 is pinned: the bundles are built and their init time measured for node22 (lib/bundling.ts); a runtime upgrade is a deliberate change',
    );
    // cdk-nag names an ARN by the resource in its own stack, and by the parameter in a nested route stack
    const arnNames = (resource: CfnElement) => [
      `<${this.getLogicalId(resource)}.Arn>`,
      `<referenceto${Names.uniqueId(resource)}Arn>`,
    ];
    for (const arn of arnNames(this.table.node.defaultChild as CfnElement)) {
      acknowledge(
        `AwsSolutions-IAM5[Resource::${arn}/index/*]`,
        "the indexes of the service's one table (GSI1), granted with the same actions as the table",
      );
    }
    for (const arn of arnNames(this.inbound.bucket.node.defaultChild as CfnElement)) {
      acknowledge(
        `AwsSolutions-IAM5[Resource::${arn}/*]`,
        'the objects of the inbound bucket: their keys are SES message ids, unknown at deploy time',
      );
    }
    for (const arn of arnNames(this.content.bucket.node.defaultChild as CfnElement)) {
      acknowledge(
        `AwsSolutions-IAM5[Resource::${arn}/*]`,
        'the objects of the content bucket: their keys are email ids, made at run time',
      );
    }
    Validations.of(this.content.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'only the service writes and reads the bucket, through its functions (logged in their own logs); server access logs would need a second bucket',
    });
    Validations.of(this.inbound.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason:
        'only SES writes the bucket and only presigned URLs from the API (in its access log) and the inbound worker read it; server access logs would need a second bucket',
    });
  }

  /**
   * The one place a function's `needs` (functions/needs.ts) become its IAM policy and the
   * environment that goes with each grant; the local runtime refuses every call outside the same
   * declaration (local/lambda/needs.ts). The table name is always set (the shared DB client
   * needs it to load) even without a table action.
   */
  private grantNeeds(fn: ApiFunction, needs: Needs): ApiFunction {
    fn.bindTable(this.table, needs.table ?? [], needs.tableByKeys);
    this.queueSet.allowSending(fn, needs.queues ?? []);
    fn.bindSes(needs.ses ?? []);
    if (needs.ses?.length) acknowledgeSesResources(fn);
    this.sesEvents.tellDestinationMakers(fn, needs.ses ?? []);
    if (needs.inboundBucket) this.inbound.grant(fn, needs.inboundBucket);
    if (needs.contentBucket) this.content.grant(fn, needs.contentBucket);
    if (needs.secretsKey) fn.bindSecretsKey(this.secretsKey, needs.secretsKey);
    if (needs.scheduler) this.schedules.grant(fn, needs.scheduler);
    if (needs.ses?.includes('ses:UpdateReputationEntityPolicy'))
      fn.addEnvironment('SES_TENANT_REPUTATION_POLICY', tenantReputationPolicy(this));
    return fn;
  }
}

/**
 * The workers of the send path: the send lanes' senders, the due-email dispatcher (scheduled mail
 * to the send queue), the email-status worker (SES events), the webhook fan-out and its dispatcher.
 * With the routes and workers that put messages on a send queue (POST /emails, /emails/batch, a
 * retry), they are what `-c tracing=true` traces.
 */
export const TRACED_WORKERS = [
  'sender',
  'bulk-sender',
  'dispatch-due-emails',
  'email-status',
  'webhook-fanout',
  'webhook-dispatcher',
];
const SEND_QUEUES = ['send', 'send-bulk'];
const tracedWorkerHandlers = new Set(
  workerDefinitions.filter((w) => TRACED_WORKERS.includes(w.name)).map((w) => w.handler),
);

/** Whether the function of `handler` with `needs` is on the send path (TRACED_WORKERS, or it enqueues sends). */
export const onSendPath = (handler: string, needs: Needs): boolean =>
  tracedWorkerHandlers.has(handler) || (needs.queues ?? []).some((q) => SEND_QUEUES.includes(q));

/**
 * X-Ray active tracing on `fn`: Lambda samples its invocations (the first request each second, then
 * 5% of the rest) and records each sampled one. The AWS SDK passes the trace on in every call's
 * X-Amzn-Trace-Id header, so SQS carries it to the sender (AWSTraceHeader) and one trace runs from
 * the route to the send; a stream record carries none, so the fan-out starts traces of its own.
 * API Gateway's HTTP APIs do not trace: a trace begins at the route's function.
 */
function traceActively(fn: ApiFunction): void {
  (fn.node.defaultChild as lambda.CfnFunction).tracingConfig = { mode: lambda.Tracing.ACTIVE };
  fn.addToRolePolicy(
    new iam.PolicyStatement({ actions: ['xray:PutTraceSegments', 'xray:PutTelemetryRecords'], resources: ['*'] }),
  );
  Validations.of(fn).acknowledge({
    id: 'AwsSolutions-IAM5[Resource::*]',
    reason: 'X-Ray PutTraceSegments and PutTelemetryRecords have no resource-level permission (tracing=true)',
  });
}

/** SES identities and configuration sets are named at run time (customers' domains, domain ids): their ARNs are patterns. */
function acknowledgeSesResources(fn: ApiFunction): void {
  const stack = Stack.of(fn);
  const patterns = [
    ['*', "ses:GetAccount has no resource type: it reads the account's own quota"],
    [
      `arn:<AWS::Partition>:ses:${stack.region}:<AWS::AccountId>:identity/*`,
      "the identities are the customers' domains, created at run time: this account's, in this region",
    ],
    [
      `arn:<AWS::Partition>:ses:${stack.region}:<AWS::AccountId>:configuration-set/es-*`,
      "the service's own configuration sets, one per domain id (es-<id>), created at run time",
    ],
    [
      `arn:<AWS::Partition>:ses:${stack.region}:<AWS::AccountId>:tenant/es-*`,
      "the service's SES tenants, one per project (es-<project id>), created at run time",
    ],
    [
      `arn:<AWS::Partition>:ses:${stack.region}:aws:reputation-policy/*`,
      "SES's own managed reputation policies (standard, strict, none), which a tenant is given",
    ],
  ];
  for (const [resource, reason] of patterns)
    Validations.of(fn).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
}

/**
 * The SES managed reputation policy every project's tenant gets (shared/domains/tenants.ts): CDK context
 * `sesTenantReputationPolicy`, `standard` (SES pauses a tenant on high-severity findings), `strict`
 * (also on lower ones) or `none`.
 */
export function tenantReputationPolicy(scope: Construct): ReputationPolicy {
  const value = scope.node.tryGetContext('sesTenantReputationPolicy') ?? 'standard';
  if (!REPUTATION_POLICIES.includes(value))
    throw new Error(
      `sesTenantReputationPolicy must be one of ${REPUTATION_POLICIES.join(', ')}, got ${JSON.stringify(value)}`,
    );
  return value;
}

/** A worker's function id in `functions`: `sender` -> `SenderWorker`. */
export const workerFunctionId = workerFunctionName;

/**
 * What one email costs the table over its life (accepted, sent, delivered, one webhook delivery):
 * 32-33 write units and 22-27 read units measured (bench/RESULTS.md, "The send path"), a few more
 * with more events (opens, clicks, a second webhook): 37 and 27 are the figures the table is warmed by.
 */
export const WRITE_UNITS_PER_EMAIL = 37;
export const READ_UNITS_PER_EMAIL = 27;
/** What a new on-demand table serves at once without pre-warming (and never less): DynamoDB's own defaults, free. */
export const ON_DEMAND_WARM_WRITE_UNITS = 4_000;
export const ON_DEMAND_WARM_READ_UNITS = 12_000;

/**
 * The table's warm throughput (the read and write units a second it serves at once, before
 * on-demand adapts): CDK context `tableWarmWriteUnits` and `tableWarmReadUnits`, else what the
 * send rate the stack is sized for needs (`sesSendRate` x 37 write units, x 27 read units). A figure
 * at or under on-demand's own 4,000 / 12,000 is not set at all (no pre-warming, no charge): the
 * default send rate of 14 a second needs 518 and 378. 500 emails a second needs 18,500 write units.
 * Raising it is a one-time charge for the units added (docs/sizing.md); it can never be lowered.
 */
export function tableWarmThroughput(scope: Construct, sendRate: number): dynamodb.WarmThroughput | undefined {
  const writes = wholeNumberFromContext(
    scope,
    'tableWarmWriteUnits',
    Math.ceil(sendRate * WRITE_UNITS_PER_EMAIL),
    1,
    'write units a second',
  );
  const reads = wholeNumberFromContext(
    scope,
    'tableWarmReadUnits',
    Math.ceil(sendRate * READ_UNITS_PER_EMAIL),
    1,
    'read units a second',
  );
  const warm = {
    ...(writes > ON_DEMAND_WARM_WRITE_UNITS ? { writeUnitsPerSecond: writes } : {}),
    ...(reads > ON_DEMAND_WARM_READ_UNITS ? { readUnitsPerSecond: reads } : {}),
  };
  return Object.keys(warm).length ? warm : undefined;
}

function createTable(scope: Construct, warmThroughput: dynamodb.WarmThroughput | undefined): dynamodb.Table {
  const { partitionKey, sortKey, globalIndexes, ttlAttribute, stream } = tableDefinition;
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    // GSI1 takes about 3 of an email's write units (its due and webhook-event keys): 1,600 a second at 500 emails/s, under its own 4,000
    ...(warmThroughput ? { warmThroughput } : {}),
    timeToLiveAttribute: ttlAttribute,
    stream: dynamodb.StreamViewType[stream],
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // The table is the customers' data: deleting the stack must not delete it, and neither may a
    // DeleteTable by hand (deletion protection: turned off on purpose first, README "Operating").
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    // A key of the account's own: its use is in CloudTrail, and revoking it locks the data.
    encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: new kms.Key(scope, 'TableKey', {
      enableKeyRotation: true,
      description: 'Email service table',
      removalPolicy: RemovalPolicy.RETAIN,
    }),
  });
  for (const index of globalIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType[index.projection],
    });
  }
  return table;
}

/**
 * An AWS Backup plan for the table: daily backups kept 35 days, monthly ones kept a year, in a
 * vault of the stack's own (retained with the table). Point-in-time recovery already restores any
 * second of the last 35 days; the plan adds older copies that survive a deleted table.
 */
function tableBackups(scope: Construct, table: dynamodb.Table): void {
  const vault = new backup.BackupVault(scope, 'BackupVault', { removalPolicy: RemovalPolicy.RETAIN });
  const plan = new backup.BackupPlan(scope, 'BackupPlan', { backupVault: vault });
  plan.addRule(
    new backup.BackupPlanRule({
      ruleName: 'daily',
      scheduleExpression: events.Schedule.cron({ hour: '15', minute: '0' }),
      deleteAfter: Duration.days(35),
    }),
  );
  plan.addRule(
    new backup.BackupPlanRule({
      ruleName: 'monthly',
      scheduleExpression: events.Schedule.cron({ day: '1', hour: '15', minute: '0' }),
      deleteAfter: Duration.days(365),
    }),
  );
  const selection = plan.addSelection('Table', { resources: [backup.BackupResource.fromDynamoDbTable(table)] });
  Validations.of(selection).acknowledge({
    id: 'AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSBackupServiceRolePolicyForBackup]',
    reason:
      "the role AWS Backup assumes to back up the table, with the policy AWS keeps for exactly that (AWS Backup's own default)",
  });
}

export interface BuildAppOptions {
  /** false skips esbuild (fast template tests); default true, as `cdk synth` does */
  bundle?: boolean;
  /** extra context, e.g. the feature flags of cdk.json, which only the CDK CLI reads by itself */
  context?: Record<string, unknown>;
}

/**
 * The app as `cdk synth` builds it, callable from tests. The account comes from the CLI's
 * credentials when there are any; without them the template stays account-agnostic, so
 * synth works offline.
 */
export function buildApp(options: BuildAppOptions = {}): { app: App; stack: EmailServiceStack } {
  const context: Record<string, unknown> = { ...options.context };
  if (options.bundle === false) context['aws:cdk:bundling-stacks'] = [];
  const app = new App({ context });
  const account = process.env.CDK_DEFAULT_ACCOUNT;
  const region = deployRegion({
    region: app.node.tryGetContext('region'),
    [RECEIVING_OVERRIDE]: app.node.tryGetContext(RECEIVING_OVERRIDE),
  });
  const stack = new EmailServiceStack(app, STACK_NAME, {
    env: account ? { account, region } : { region },
    description: 'Resend-compatible email sending service (HTTP API, Lambda, DynamoDB)',
  });
  return { app, stack };
}
