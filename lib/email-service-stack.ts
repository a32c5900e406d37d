/**
 * The whole service on AWS: the single table, and an HTTP API whose routes come from the route
 * table (functions/routes.ts), one function per route with exactly the table actions it needs.
 * Region is fixed to ap-southeast-2 (Sydney): SES identities and the domain `region` field
 * (DESIGN.md) assume it.
 */
import { App, CfnOutput, RemovalPolicy, Stack, type StackProps } from 'aws-cdk-lib';
import { AccessLogFormat } from 'aws-cdk-lib/aws-apigateway';
import * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as logs from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { fallbackRoute, functionName, routes, tableActions } from '../functions/routes';
import { ApiFunction } from './api-function';
import { tableDefinition } from './table-definition';

export const STACK_NAME = 'EmailService';
export const REGION = 'ap-southeast-2';

export class EmailServiceStack extends Stack {
  readonly table: dynamodb.Table;
  readonly api: apigw.HttpApi;
  readonly apiUrl: string;
  /** every function of the stack by construct id, so later constructs (alarms, cdk-nag) reach them */
  readonly functions = new Map<string, ApiFunction>();

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);

    this.table = createTable(this);

    // `$default` catches what no route matches, so unknown routes get our 404/405 envelope
    // instead of API Gateway's own `{"message":"Not Found"}`.
    const fallback = this.addFunction(functionName(fallbackRoute), fallbackRoute.handler, tableActions(fallbackRoute));
    this.api = new apigw.HttpApi(this, 'Api', {
      defaultIntegration: new HttpLambdaIntegration('FallbackIntegration', fallback),
      // The default stage is made below: HttpApi cannot give its own one access logging.
      createDefaultStage: false,
    });
    for (const route of routes) {
      const fnId = functionName(route);
      const fn = this.addFunction(fnId, route.handler, tableActions(route));
      this.api.addRoutes({
        path: route.path,
        methods: [apigw.HttpMethod[route.method]],
        integration: new HttpLambdaIntegration(`${fnId}Integration`, fn),
      });
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

    // Later issues add the workers here (send queue + sender, SES events via SNS -> SQS, the
    // stream fan-out, webhook dispatcher, schedules): each one an `addFunction(...)` with its
    // own table actions, plus the queue or event source that triggers it.

    new CfnOutput(this, 'ApiUrl', { value: this.apiUrl, description: 'Base URL for API clients (Resend SDK `baseUrl`)' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName, description: 'Pass to `npm run api-key` to create the first API key' });
  }

  /** A function for `functions/<handler>.ts` that may perform only `actions` on the table. */
  addFunction(id: string, handler: string, actions: Parameters<ApiFunction['bindTable']>[1]): ApiFunction {
    const fn = new ApiFunction(this, id, { handler }).bindTable(this.table, actions);
    this.functions.set(id, fn);
    return fn;
  }
}

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
