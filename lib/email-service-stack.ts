/**
 * The whole service on AWS: the single table, and an HTTP API whose routes come from the route
 * table (functions/routes.ts), one function per route with exactly the table actions it needs.
 * Region is fixed to ap-southeast-2 (Sydney): SES identities and the domain `region` field
 * (DESIGN.md) assume it.
 */
import { App, CfnOutput, Duration, Names, NestedStack, RemovalPolicy, Stack, Validations, type CfnElement, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as logs from 'aws-cdk-lib/aws-logs';
import * as sns from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type { Construct } from 'constructs';
import { WORKER_TIMEOUT_SECONDS, type Needs } from '../functions/needs';
import { fallbackRoute, functionName, routeNeeds, routes } from '../functions/routes';
import {
  INBOUND_QUEUE,
  QUEUE_MAX_MESSAGE_BYTES,
  queues as queueDefinitions,
  queueUrlVariable,
  sesEventSubscriptions,
  workerFunctionName,
  workers,
  workerTimeoutSeconds,
  type QueueDefinition,
} from '../functions/workers';
import { ApiFunction } from './api-function';
import { InboundMail, inboundRetentionDays } from './inbound';
import { tableDefinition } from './table-definition';

export const STACK_NAME = 'EmailService';
export const REGION = 'ap-southeast-2';

export class EmailServiceStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigw.HttpApi;
  readonly apiUrl: string;
  /** every function of the stack by construct id, so later constructs (alarms, cdk-nag) reach them */
  readonly functions = new Map<string, ApiFunction>();
  /** the queues of functions/workers.ts by name, each with its DLQ */
  readonly queues = new Map<string, { queue: sqs.Queue; dlq: sqs.Queue }>();
  /** where every domain's configuration set publishes its SES events */
  readonly sesEventsTopic: sns.Topic;
  /** inbound mail: bucket, SES receipt rule set, notification topic (lib/inbound.ts) */
  readonly inbound: InboundMail;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    this.table = createTable(this);
    for (const definition of queueDefinitions) this.queues.set(definition.name, this.createQueue(definition));
    this.sesEventsTopic = this.createSesEventsTopic();
    this.inbound = new InboundMail(this, 'InboundMail', { queue: this.queue(INBOUND_QUEUE).queue, retentionDays: inboundRetentionDays(this) });

    // `$default` catches what no route matches, so unknown routes get our 404/405 envelope
    // instead of API Gateway's own `{"message":"Not Found"}`.
    const fallback = this.grantNeeds(this.addFunction(functionName(fallbackRoute), fallbackRoute.handler), routeNeeds(fallbackRoute));
    this.api = new apigw.HttpApi(this, 'Api', {
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
      // The default stage is made below: HttpApi cannot give its own one access logging.
      createDefaultStage: false,
    });
    // The route functions live in nested stacks, one per resource (the handler's folder): each
    // route costs about 7 resources (function, role, policy, log group, integration, route,
    // permission) and CloudFormation allows 500 per stack, so one stack would stop at ~60 routes.
    for (const [group, groupRoutes] of routeGroups()) {
      const nested = new NestedStack(this, `${functionName({ handler: group })}Routes`, { description: `The ${group} routes of the HTTP API` });
      for (const route of groupRoutes) {
        const fnId = functionName(route);
        const fn = this.grantNeeds(this.addFunction(fnId, route.handler, undefined, nested), routeNeeds(route));
        new apigw.HttpRoute(nested, `${fnId}Route`, {
          httpApi: this.api,
          routeKey: apigw.HttpRouteKey.with(route.path, apigw.HttpMethod[route.method]),
          integration: new HttpLambdaIntegration(`${fnId}Integration`, fn),
        });
      }
    }

    this.api.addStage('DefaultStage', {
      stageName: '$default',
      autoDeploy: true,
      accessLogSettings: {
        destination: new apigw.LogGroupLogDestination(
          new logs.LogGroup(this, 'ApiAccessLogs', {
            retention: logs.RetentionDays.ONE_MONTH,
            removalPolicy: RemovalPolicy.DESTROY,
          }),
        ),
        format: AccessLogFormat.custom(JSON.stringify(ACCESS_LOG_FIELDS)),
      },
    });
    // The endpoint without the stage's trailing slash: clients append paths that start with '/'.
    this.apiUrl = this.api.apiEndpoint;

    // Queue, schedule and stream consumers from functions/workers.ts.
    for (const worker of workers) {
      const fn = this.grantNeeds(this.addFunction(workerFunctionId(worker.name), worker.handler, Duration.seconds(workerTimeoutSeconds(worker))), worker.needs);
      if (worker.publicApiUrl) fn.addEnvironment('PUBLIC_API_URL', this.apiUrl);
      const { trigger } = worker;
      if (trigger.kind === 'queue') {
        const { queue } = this.queue(trigger.queue);
        fn.addEventSource(
          new SqsEventSource(queue, {
            batchSize: trigger.batchSize,
            reportBatchItemFailures: true,
            ...(trigger.maxConcurrency ? { maxConcurrency: Math.max(2, trigger.maxConcurrency) } : {}),
          }),
        );
      } else if (trigger.kind === 'schedule') {
        new events.Rule(this, `${workerFunctionId(worker.name)}Schedule`, {
          schedule: events.Schedule.rate(Duration.seconds(Math.max(60, trigger.everySeconds))), // EventBridge's finest rate is 1 minute
          targets: [new eventTargets.LambdaFunction(fn)],
        });
      } else {
        // The table's stream, filtered like the local stream poller filters (lib/local/event-filter.ts).
        fn.addEventSource(
          new DynamoEventSource(this.table, {
            startingPosition: lambda.StartingPosition.TRIM_HORIZON,
            batchSize: trigger.batchSize,
            retryAttempts: trigger.maxRetryAttempts,
            reportBatchItemFailures: true,
            bisectBatchOnError: true,
            filters: trigger.filter ? [lambda.FilterCriteria.filter(trigger.filter)] : undefined,
          }),
        );
        this.table.grantStreamRead(fn);
        Validations.of(fn).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: 'dynamodb:ListStreams (part of reading the stream) has no resource-level permission' });
      }
    }

    this.acknowledgeNagFindings();

    new CfnOutput(this, 'ApiUrl', { value: this.apiUrl, description: 'Base URL for API clients (Resend SDK `baseUrl`)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'Pass to `npm run api-key` to create the first API key' });
    new CfnOutput(this, 'ReceiptRuleSetName', {
      value: this.inbound.ruleSet.receiptRuleSetName,
      description: 'Activate once for inbound mail: aws ses set-active-receipt-rule-set --rule-set-name <this> --region ap-southeast-2',
    });
    new CfnOutput(this, 'InboundBucketName', { value: this.inbound.bucket.bucketName, description: 'Raw received messages and their attachments' });
  }

  /**
   * The cdk-nag AwsSolutions findings this design accepts, each with its reason (test/infra/cdk-nag.test.ts
   * runs the checks; anything not acknowledged here fails it). Per-function ones sit where the grant is made.
   */
  private acknowledgeNagFindings(): void {
    const acknowledge = (id: string, reason: string) => Validations.of(this).acknowledge({ id, reason });
    acknowledge('AwsSolutions-APIG4', 'every route checks the bearer API key in its function (shared/http/api.ts); the unauthenticated ones are public by design (health, OpenAPI, OAuth token, unsubscribe links)');
    acknowledge('AwsSolutions-IAM4[Policy::arn:<AWS::Partition>:iam::aws:policy/service-role/AWSLambdaBasicExecutionRole]', 'AWS\'s minimal policy for a function to write its own logs; everything else is granted per action');
    acknowledge('AwsSolutions-L1', 'Node.js 22 is pinned: the bundles are built and their init time measured for node22 (lib/bundling.ts); a runtime upgrade is a deliberate change');
    // cdk-nag names an ARN by the resource in its own stack, and by the parameter in a nested route stack
    const arnNames = (resource: CfnElement) => [`<${this.getLogicalId(resource)}.Arn>`, `<referenceto${Names.uniqueId(resource)}Arn>`];
    for (const arn of arnNames(this.table.node.defaultChild as CfnElement)) {
      acknowledge(`AwsSolutions-IAM5[Resource::${arn}/index/*]`, 'the indexes of the service\'s one table (GSI1), granted with the same actions as the table');
    }
    for (const arn of arnNames(this.inbound.bucket.node.defaultChild as CfnElement)) {
      acknowledge(`AwsSolutions-IAM5[Resource::${arn}/*]`, 'the objects of the inbound bucket: their keys are SES message ids, unknown at deploy time');
    }
    Validations.of(this.inbound.bucket).acknowledge({
      id: 'AwsSolutions-S1',
      reason: 'only SES writes the bucket and only presigned URLs from the API (in its access log) and the inbound worker read it; server access logs would need a second bucket',
    });
  }

  /** A function for `functions/<handler>.ts` (in `scope`: this stack or a nested one), with no permission yet: see `grantNeeds`. */
  addFunction(id: string, handler: string, timeout?: Duration, scope: Construct = this): ApiFunction {
    const fn = new ApiFunction(scope, id, { handler, timeout });
    this.functions.set(id, fn);
    return fn;
  }

  /**
   * The one place a function's `needs` (functions/needs.ts) become its IAM policy and the
   * environment that goes with each grant; the local runtime refuses every call outside the same
   * declaration (lib/local/lambda/needs.ts). The table name is always set (the shared DB client
   * needs it to load) even without a table action.
   */
  grantNeeds(fn: ApiFunction, needs: Needs): ApiFunction {
    fn.bindTable(this.table, needs.table ?? []);
    this.allowSending(fn, needs.queues);
    fn.bindSes(needs.ses ?? []);
    if (needs.ses?.length) acknowledgeSesResources(fn);
    this.tellEventsTopic(fn, needs.ses ?? []);
    if (needs.inboundBucket) this.inbound.grant(fn, needs.inboundBucket);
    return fn;
  }

  /**
   * The SES events topic: SES publishes each send's events to it (the configuration sets' event
   * destinations), and the feedback queues subscribe with the body filters of
   * `sesEventSubscriptions`. Encrypted with a key SES may use; SNS delivers to the SSE-SQS queues.
   */
  private createSesEventsTopic(): sns.Topic {
    const key = new kms.Key(this, 'SesEventsKey', { enableKeyRotation: true, description: 'SES events topic' });
    key.grant(new iam.ServicePrincipal('ses.amazonaws.com'), 'kms:GenerateDataKey*', 'kms:Decrypt');
    const topic = new sns.Topic(this, 'SesEventsTopic', { masterKey: key, enforceSSL: true });
    topic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [topic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': this.account } },
      }),
    );
    for (const subscription of sesEventSubscriptions) {
      // SES feedback that waits is mail sent to suppressed addresses, or statuses that lag: alarm on a backlog
      const { queue } = this.queue(subscription.queue);
      new cloudwatch.Alarm(this, `${functionName({ handler: subscription.queue })}BacklogAlarm`, {
        alarmDescription: `SES events have waited over 5 minutes in the ${subscription.queue} queue (its consumer is failing or too slow)`,
        metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1) }),
        threshold: 300,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      const filter = subscription.bodyFilter;
      topic.addSubscription(
        new SqsSubscription(this.queue(subscription.queue).queue, {
          ...(filter
            ? { filterPolicyWithMessageBody: { eventType: sns.FilterOrPolicy.filter(sns.SubscriptionFilter.stringFilter({ allowlist: [...filter.eventType] })) } }
            : {}),
        }),
      );
    }
    return topic;
  }

  /** Functions that create or change configuration-set event destinations need the topic they point at. */
  private tellEventsTopic(fn: ApiFunction, sesActions: readonly string[]): void {
    if (sesActions.some((a) => a.endsWith('ConfigurationSetEventDestination'))) fn.addEnvironment('SES_EVENTS_TOPIC_ARN', this.sesEventsTopic.topicArn);
  }

  private queue(name: string) {
    const entry = this.queues.get(name);
    if (!entry) throw new Error(`unknown queue ${name} (functions/workers.ts)`);
    return entry;
  }

  /** Lets `fn` send to the named queues, and tells it their URLs (QUEUE_URL_<NAME>, as locally). */
  private allowSending(fn: ApiFunction, names: readonly string[] | undefined): void {
    for (const name of names ?? []) {
      const { queue } = this.queue(name);
      queue.grantSendMessages(fn);
      fn.addEnvironment(queueUrlVariable(name), queue.queueUrl);
    }
  }

  /** A queue with its DLQ (14 days to inspect and redrive) and an alarm as soon as anything lands there. */
  private createQueue(definition: QueueDefinition) {
    const id = functionName({ handler: definition.name });
    const dlq = new sqs.Queue(this, `${id}DeadLetterQueue`, {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new sqs.Queue(this, `${id}Queue`, {
      visibilityTimeout: Duration.seconds(Math.max(definition.visibilityTimeoutSeconds, WORKER_TIMEOUT_SECONDS)),
      maxMessageSizeBytes: QUEUE_MAX_MESSAGE_BYTES,
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: { queue: dlq, maxReceiveCount: definition.maxReceiveCount },
    });
    new cloudwatch.Alarm(this, `${id}DeadLetterAlarm`, {
      alarmDescription: `Messages of the ${definition.name} queue failed ${definition.maxReceiveCount} times and wait in its DLQ`,
      metric: dlq.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
      threshold: 0,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    return { queue, dlq };
  }
}

/** SES identities, configuration sets and recipients are named at run time (customers' domains): no ARN to list at deploy time. */
function acknowledgeSesResources(fn: ApiFunction): void {
  Validations.of(fn).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: 'SES identities and configuration sets are the customers\' domains, created at run time, so their ARNs are not known at deploy time' });
}

/** The routes by resource (the folder of their handler, e.g. `contacts`), in route-table order. */
function routeGroups(): Map<string, (typeof routes)[number][]> {
  const groups = new Map<string, (typeof routes)[number][]>();
  for (const route of routes) {
    const group = route.handler.split('/')[0];
    groups.set(group, [...(groups.get(group) ?? []), route]);
  }
  return groups;
}

export const workerFunctionId = workerFunctionName;

/**
 * One JSON object per request, so CloudWatch Logs Insights can filter on fields; `requestId`
 * is the id our error envelope reports, which ties an access line to the function's logs.
 */
const ACCESS_LOG_FIELDS = {
  requestId: '$context.requestId',
  ip: '$context.identity.sourceIp',
  requestTime: '$context.requestTime',
  routeKey: '$context.routeKey',
  status: '$context.status',
  responseLength: '$context.responseLength',
  integrationLatency: '$context.integrationLatency',
  integrationError: '$context.integrationErrorMessage',
};

function createTable(scope: Construct): dynamodb.Table {
  const { partitionKey, sortKey, globalIndexes, ttlAttribute, stream } = tableDefinition;
  const table = new dynamodb.Table(scope, 'Table', {
    partitionKey: { name: partitionKey, type: dynamodb.AttributeType.STRING },
    sortKey: { name: sortKey, type: dynamodb.AttributeType.STRING },
    billingMode: dynamodb.BillingMode.PAY_PER_REQUEST,
    timeToLiveAttribute: ttlAttribute,
    stream: dynamodb.StreamViewType[stream],
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    // The table is the customers' data: deleting the stack must not delete it.
    removalPolicy: RemovalPolicy.RETAIN,
  });
  for (const index of globalIndexes) {
    table.addGlobalSecondaryIndex({
      indexName: index.name,
      partitionKey: { name: index.partitionKey, type: dynamodb.AttributeType.STRING },
      sortKey: { name: index.sortKey, type: dynamodb.AttributeType.STRING },
      projectionType: dynamodb.ProjectionType.ALL,
    });
  }
  return table;
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
