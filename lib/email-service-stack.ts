/**
 * The whole service on AWS: the single table, and the constructs of lib/constructs/ around it:
 *
 * - `Queues` (queues.ts): every queue of functions/workers.ts with its DLQ and DLQ alarm;
 * - `SesEvents` (ses-events.ts): the topic SES publishes sending events to, feeding the feedback queues;
 * - `InboundMail` (lib/inbound.ts): the bucket, receipt rule set and topic of received mail;
 * - `ContentBucket` (content-bucket.ts): each email's content, written once;
 * - `ServiceApi` (http-api.ts): the HTTP API of functions/routes.ts, one function per route in nested stacks;
 * - `Workers` (workers.ts): one function per worker of functions/workers.ts with its trigger;
 * - `Monitoring` (monitoring.ts): the alarm topic every alarm notifies, the service's alarms and its dashboard.
 *
 * The constructs make their functions through the stack (`makeFunction`), so `grantNeeds` stays
 * the one place where `needs` become IAM. The stack also keeps the cdk-nag acknowledgements and
 * the outputs. Region is fixed to ap-southeast-2 (Sydney): SES identities and the domain
 * `region` field (DESIGN.md) assume it.
 */
import { App, CfnOutput, Duration, Names, RemovalPolicy, Stack, Validations, type CfnElement, type StackProps } from 'aws-cdk-lib';
import * as backup from 'aws-cdk-lib/aws-backup';
import * as events from 'aws-cdk-lib/aws-events';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as kms from 'aws-cdk-lib/aws-kms';
import type * as sns from 'aws-cdk-lib/aws-sns';
import type { Construct } from 'constructs';
import type { Needs } from '../functions/needs';
import { INBOUND_QUEUE, workerFunctionName } from '../functions/workers';
import { ApiFunction } from './api-function';
import type { FunctionFactory, FunctionSpec } from './constructs/function-factory';
import { ContentBucket, emailRetentionDays } from './constructs/content-bucket';
import { ServiceApi } from './constructs/http-api';
import { type QueuePair, Queues } from './constructs/queues';
import { SesEvents } from './constructs/ses-events';
import { Monitoring } from './constructs/monitoring';
import { sesSendRate, Workers } from './constructs/workers';
import { InboundMail, inboundRetentionDays } from './inbound';
import { flagFromContext } from './context';
import { REGION_NAME } from './region';
import { tableDefinition } from './table-definition';
import { REPUTATION_POLICIES, type ReputationPolicy } from '../shared/domains/tenant-policies';

export const STACK_NAME = 'EmailService';
export const REGION = REGION_NAME;

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

    this.table = createTable(this);
    // `-c backupPlan=true`: off by default (point-in-time recovery covers 35 days)
    if (flagFromContext(this, 'backupPlan')) tableBackups(this, this.table);
    this.queueSet = new Queues(this, 'Queues');
    this.queues = this.queueSet.byName;
    this.sesEvents = new SesEvents(this, 'SesEvents', { queues: this.queueSet });
    this.sesEventsTopic = this.sesEvents.topic;
    this.inbound = new InboundMail(this, 'InboundMail', { queue: this.queueSet.named(INBOUND_QUEUE).queue, retentionDays: inboundRetentionDays(this) });
    this.content = new ContentBucket(this, 'Content', { retentionDays: emailRetentionDays(this) });
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
    this.workers = new Workers(this, 'Workers', { functions: this, queues: this.queueSet, table: this.table, apiUrl: this.apiUrl });

    this.monitoring = new Monitoring(this, 'Monitoring', { table: this.table, api: this.api, queues: this.queueSet, functions: this.functions, sendRate: sesSendRate(this) });
    this.monitoring.notifyOnEveryAlarm(this); // last: every alarm exists by now

    this.acknowledgeNagFindings();

    new CfnOutput(this, 'ApiUrl', { value: this.apiUrl, description: 'Base URL for API clients (Resend SDK `baseUrl`)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'Pass to `npm run api-key` to create the first API key' });
    new CfnOutput(this, 'ReceiptRuleSetName', {
      value: this.inbound.ruleSet.receiptRuleSetName,
      description: 'Activate once for inbound mail: aws ses set-active-receipt-rule-set --rule-set-name <this> --region ap-southeast-2',
    });
    new CfnOutput(this, 'InboundBucketName', { value: this.inbound.bucket.bucketName, description: 'Raw received messages and their attachments' });
    new CfnOutput(this, 'ContentBucketName', { value: this.content.bucket.bucketName, description: "Sent emails' content (html, text, headers, attachments), one object per email" });
  }

  /** A function for `functions/<handler>.ts` in `scope` (a construct of this stack or a nested stack), granted its needs. */
  makeFunction(scope: Construct, id: string, { handler, needs, timeout, memoryMb, consoleAssets }: FunctionSpec): ApiFunction {
    const fn = new ApiFunction(scope, id, { handler, timeout, memoryMb, consoleAssets });
    this.functions.set(id, fn);
    return this.grantNeeds(fn, needs);
  }

  /**
   * The cdk-nag AwsSolutions findings this design accepts, each with its reason (test/infra/cdk-nag.test.ts
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
    acknowledge('AwsSolutions-L1', 'Node.js 22 is pinned: the bundles are built and their init time measured for node22 (lib/bundling.ts); a runtime upgrade is a deliberate change');
    // cdk-nag names an ARN by the resource in its own stack, and by the parameter in a nested route stack
    const arnNames = (resource: CfnElement) => [`<${this.getLogicalId(resource)}.Arn>`, `<referenceto${Names.uniqueId(resource)}Arn>`];
    for (const arn of arnNames(this.table.node.defaultChild as CfnElement)) {
      acknowledge(`AwsSolutions-IAM5[Resource::${arn}/index/*]`, "the indexes of the service's one table (GSI1), granted with the same actions as the table");
    }
    for (const arn of arnNames(this.inbound.bucket.node.defaultChild as CfnElement)) {
      acknowledge(`AwsSolutions-IAM5[Resource::${arn}/*]`, 'the objects of the inbound bucket: their keys are SES message ids, unknown at deploy time');
    }
    for (const arn of arnNames(this.content.bucket.node.defaultChild as CfnElement)) {
      acknowledge(`AwsSolutions-IAM5[Resource::${arn}/*]`, 'the objects of the content bucket: their keys are email ids, made at run time');
    }
    Validations.of(this.content.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'only the service writes and reads the bucket, through its functions (logged in their own logs); server access logs would need a second bucket',
    });
    Validations.of(this.inbound.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'only SES writes the bucket and only presigned URLs from the API (in its access log) and the inbound worker read it; server access logs would need a second bucket',
    });
  }

  /**
   * The one place a function's `needs` (functions/needs.ts) become its IAM policy and the
   * environment that goes with each grant; the local runtime refuses every call outside the same
   * declaration (lib/local/lambda/needs.ts). The table name is always set (the shared DB client
   * needs it to load) even without a table action.
   */
  private grantNeeds(fn: ApiFunction, needs: Needs): ApiFunction {
    fn.bindTable(this.table, needs.table ?? []);
    this.queueSet.allowSending(fn, needs.queues ?? []);
    fn.bindSes(needs.ses ?? []);
    if (needs.ses?.length) acknowledgeSesResources(fn);
    this.sesEvents.tellDestinationMakers(fn, needs.ses ?? []);
    if (needs.inboundBucket) this.inbound.grant(fn, needs.inboundBucket);
    if (needs.contentBucket) this.content.grant(fn, needs.contentBucket);
    if (needs.secretsKey) fn.bindSecretsKey(this.secretsKey, needs.secretsKey);
    if (needs.ses?.includes('ses:UpdateReputationEntityPolicy')) fn.addEnvironment('SES_TENANT_REPUTATION_POLICY', tenantReputationPolicy(this));
    return fn;
  }
}

/** SES identities and configuration sets are named at run time (customers' domains, domain ids): their ARNs are patterns. */
function acknowledgeSesResources(fn: ApiFunction): void {
  const stack = Stack.of(fn);
  const patterns = [
    ['*', "ses:GetAccount has no resource type: it reads the account's own quota"],
    [`arn:<AWS::Partition>:ses:${stack.region}:<AWS::AccountId>:identity/*`, "the identities are the customers' domains, created at run time: this account's, in this region"],
    [`arn:<AWS::Partition>:ses:${stack.region}:<AWS::AccountId>:configuration-set/es-*`, "the service's own configuration sets, one per domain id (es-<id>), created at run time"],
    [`arn:<AWS::Partition>:ses:${stack.region}:<AWS::AccountId>:tenant/es-*`, "the service's SES tenants, one per project (es-<project id>), created at run time"],
    [`arn:<AWS::Partition>:ses:${stack.region}:aws:reputation-policy/*`, "SES's own managed reputation policies (standard, strict, none), which a tenant is given"],
  ];
  for (const [resource, reason] of patterns) Validations.of(fn).acknowledge({ id: `AwsSolutions-IAM5[Resource::${resource}]`, reason });
}

/**
 * The SES managed reputation policy every project's tenant gets (shared/domains/tenants.ts): CDK context
 * `sesTenantReputationPolicy`, `standard` (SES pauses a tenant on high-severity findings), `strict`
 * (also on lower ones) or `none`.
 */
export function tenantReputationPolicy(scope: Construct): ReputationPolicy {
  const value = scope.node.tryGetContext('sesTenantReputationPolicy') ?? 'standard';
  if (!REPUTATION_POLICIES.includes(value)) throw new Error(`sesTenantReputationPolicy must be one of ${REPUTATION_POLICIES.join(', ')}, got ${JSON.stringify(value)}`);
  return value;
}

/** A worker's function id in `functions`: `sender` -> `SenderWorker`. */
export const workerFunctionId = workerFunctionName;

function createTable(scope: Construct): dynamodb.Table {
  const { partitionKey, sortKey, globalIndexes, ttlAttribute, stream } = tableDefinition;
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: ttlAttribute,
    stream: dynamodb.StreamViewType[stream],
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // The table is the customers' data: deleting the stack must not delete it, and neither may a
    // DeleteTable by hand (deletion protection: turned off on purpose first, README "Operating").
    removalPolicy: RemovalPolicy.RETAIN,
    deletionProtection: true,
    // A key of the account's own: its use is in CloudTrail, and revoking it locks the data.
    encryption: dynamodb.TableEncryption.CUSTOMER_MANAGED,
    encryptionKey: new kms.Key(scope, 'TableKey', { enableKeyRotation: true, description: 'Email service table', removalPolicy: RemovalPolicy.RETAIN }),
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
  plan.addRule(new backup.BackupPlanRule({ ruleName: 'daily', scheduleExpression: events.Schedule.cron({ hour: '15', minute: '0' }), deleteAfter: Duration.days(35) }));
  plan.addRule(new backup.BackupPlanRule({ ruleName: 'monthly', scheduleExpression: events.Schedule.cron({ day: '1', hour: '15', minute: '0' }), deleteAfter: Duration.days(365) }));
  plan.addSelection('Table', { resources: [backup.BackupResource.fromDynamoDbTable(table)] });
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
  const stack = new EmailServiceStack(app, STACK_NAME, {
    env: account ? { account, region: REGION } : { region: REGION },
    description: 'Resend-compatible email sending service (HTTP API, Lambda, DynamoDB)',
  });
  return { app, stack };
}
