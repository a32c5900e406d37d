/**
 * What the people running the service see and receive: one alarm topic that every alarm of the
 * stack notifies (nested stacks included), the alarms a production email service needs beyond the
 * DLQ and backlog ones made with their queues, and a dashboard of the golden signals.
 *
 * Thresholds are in ALARMS below and in README "Operating", with what to do when each fires.
 * The custom metrics (sends, throttles, webhook deliveries by outcome) come from the workers' logs
 * in Embedded Metric Format (shared/platform/metrics.ts): no PutMetricData call, no extra latency.
 */
import { Annotations, CfnOutput, Duration, Stack } from 'aws-cdk-lib';
import type * as apigw from 'aws-cdk-lib/aws-apigatewayv2';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import { SnsAction } from 'aws-cdk-lib/aws-cloudwatch-actions';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { EmailSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { fallbackRoute, functionName, routes } from '../../functions/routes';
import { workerFunctionName, workers } from '../../functions/workers';
import { METRICS_NAMESPACE } from '../../shared/platform/metrics';
import type { ApiFunction } from '../api-function';
import { wholeNumberFromContext } from '../context';
import type { Queues } from './queues';

/** The thresholds, in one place (README "Operating" lists them with what to do). */
export const ALARMS = {
  /** SES reviews an account at 5% bounces and 0.1% complaints: warn at half of each */
  sesBounceRate: 0.025,
  sesComplaintRate: 0.0005,
  /** a worker's invocation errors (a thrown handler or a timeout, not a reported batch item) in 5 minutes */
  workerErrors: 5,
  /** a worker's throttled invocations in 5 minutes */
  workerThrottles: 10,
  /** the oldest record a stream consumer has not yet handled */
  streamIteratorAgeMs: 5 * 60 * 1000,
  /** the age of the oldest message, by queue: how long mail or a delivery may wait before someone looks */
  queueAgeSeconds: {
    send: 5 * 60, // a transactional email waits: customers notice in minutes
    'send-bulk': 12 * 60 * 60, // a broadcast backlog at the send rate is normal; half a day is not
    'webhook-delivery': 60 * 60, // retried messages drop out of this metric after 3 receives
    'broadcast-fanout': 15 * 60,
  } as Record<string, number>,
  /** percent of API responses that are 5xx, over 5 minutes, twice in a row */
  api5xxPercent: 1,
  /** DynamoDB read and write throttle events in 5 minutes */
  tableThrottles: 10,
  /**
   * SES events the ses-events queue received per email sent, in 15 minutes: every email SES accepts
   * publishes at least a Send event and a Delivery or Bounce (test mode publishes the same), so
   * fewer than one is events lost (a configuration set still publishing to a replaced topic)
   */
  sesEventsPerSent: 1,
  /** the account's concurrent executions, as a share of its quota (CDK context `lambdaConcurrencyQuota`, default 1,000) */
  concurrencyShare: 0.8,
};

/** What `cdk synth`/`deploy` and `npm run preflight` say when the alarm topic has no subscriber of the stack's. */
export const NO_ALARM_SUBSCRIBER =
  'NO ONE RECEIVES THE ALARMS: the alarm topic has no subscriber (-c alarmEmail=<address> not given). Give it, or subscribe a pager or chat to the AlarmTopicArn output after the deploy.';

/** The Lambda concurrency quota of the account (Service Quotas, "Concurrent executions"): CDK context `lambdaConcurrencyQuota`, default 1,000. */
export const lambdaConcurrencyQuota = (scope: Construct): number =>
  wholeNumberFromContext(scope, 'lambdaConcurrencyQuota', 1000, 10);

export interface MonitoringProps {
  table: dynamodb.Table;
  api: apigw.HttpApi;
  queues: Queues;
  /** every function of the stack by construct id */
  functions: ReadonlyMap<string, ApiFunction>;
  /** the send rate the stack is sized for (sesSendRate), drawn on the sends graph */
  sendRate: number;
}

export class Monitoring extends Construct {
  readonly alarmTopic: sns.Topic;
  readonly dashboard: cloudwatch.Dashboard;

  constructor(scope: Construct, id: string, props: MonitoringProps) {
    super(scope, id);
    const stack = Stack.of(this);

    // CloudWatch publishes to an encrypted topic only with a customer managed key it may use.
    const key = new kms.Key(this, 'AlarmKey', { enableKeyRotation: true, description: 'Alarm topic' });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['kms:Decrypt', 'kms:GenerateDataKey*'],
        resources: ['*'],
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    );
    this.alarmTopic = new sns.Topic(this, 'AlarmTopic', {
      masterKey: key,
      enforceSSL: true,
      displayName: 'Email service alarms',
    });
    this.alarmTopic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('cloudwatch.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.alarmTopic.topicArn],
        conditions: { StringEquals: { 'aws:SourceAccount': stack.account } },
      }),
    );
    const email = this.node.tryGetContext('alarmEmail');
    if (email !== undefined) {
      if (typeof email !== 'string' || !/^[^@\s]+@[^@\s]+$/.test(email))
        throw new Error(`alarmEmail must be an email address, got ${JSON.stringify(email)}`);
      this.alarmTopic.addSubscription(new EmailSubscription(email));
    } else {
      // a warning, not a refusal: a pager or chat may be subscribed to the topic outside the stack, which synth cannot see
      Annotations.of(this).addWarningV2('email-service:no-alarm-subscriber', NO_ALARM_SUBSCRIBER);
    }
    new CfnOutput(stack, 'AlarmTopicArn', {
      value: this.alarmTopic.topicArn,
      description: 'Every alarm notifies this topic: subscribe your pager or chat to it',
    });

    this.sesAlarms();
    this.workerAlarms(props.functions);
    this.queueAgeAlarms(props.queues);
    this.apiAlarm(props.api);
    this.tableAlarm(props.table);
    this.concurrencyAlarm();
    this.reputationGuardAlarm();
    this.sesEventsAlarm(props.queues);
    this.dashboard = this.makeDashboard(props);
  }

  /** Every alarm under `root` (the stack and its nested stacks) notifies the alarm topic; called once every construct exists. */
  notifyOnEveryAlarm(root: Construct): void {
    const action = new SnsAction(this.alarmTopic);
    for (const alarm of root.node.findAll().filter((c): c is cloudwatch.Alarm => c instanceof cloudwatch.Alarm))
      alarm.addAlarmAction(action);
  }

  private alarm(
    id: string,
    description: string,
    metric: cloudwatch.IMetric,
    threshold: number,
    evaluationPeriods = 1,
  ): cloudwatch.Alarm {
    return new cloudwatch.Alarm(this, id, {
      alarmDescription: description,
      metric,
      threshold,
      evaluationPeriods,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
  }

  private sesAlarms(): void {
    const reputation = (name: string) =>
      new cloudwatch.Metric({
        namespace: 'AWS/SES',
        metricName: name,
        statistic: 'Maximum',
        period: Duration.minutes(15),
      });
    this.alarm(
      'SesBounceRateAlarm',
      `The account's SES bounce rate reached ${ALARMS.sesBounceRate * 100}% (SES reviews the account at 5%): find the project sending to bad lists`,
      reputation('Reputation.BounceRate'),
      ALARMS.sesBounceRate,
    );
    this.alarm(
      'SesComplaintRateAlarm',
      `The account's SES complaint rate reached ${ALARMS.sesComplaintRate * 100}% (SES reviews the account at 0.1%): find the project whose mail draws complaints`,
      reputation('Reputation.ComplaintRate'),
      ALARMS.sesComplaintRate,
    );
  }

  private workerAlarms(functions: ReadonlyMap<string, ApiFunction>): void {
    for (const worker of workers) {
      const id = workerFunctionName(worker.name);
      const fn = functions.get(id);
      if (!fn) throw new Error(`no function for worker ${worker.name}`);
      const period = Duration.minutes(5);
      this.alarm(
        `${id}ErrorsAlarm`,
        `The ${worker.name} worker failed ${ALARMS.workerErrors} invocations in 5 minutes (thrown or timed out)`,
        fn.metricErrors({ period }),
        ALARMS.workerErrors,
      );
      this.alarm(
        `${id}ThrottlesAlarm`,
        `The ${worker.name} worker was throttled ${ALARMS.workerThrottles} times in 5 minutes (account concurrency)`,
        fn.metricThrottles({ period }),
        ALARMS.workerThrottles,
      );
      if (worker.trigger.kind === 'stream') {
        this.alarm(
          `${id}IteratorAgeAlarm`,
          `The ${worker.name} worker is over 5 minutes behind the table's stream (records expire after 24 hours)`,
          fn.metric('IteratorAge', { statistic: 'Maximum', period }),
          ALARMS.streamIteratorAgeMs,
        );
      }
    }
  }

  private queueAgeAlarms(queues: Queues): void {
    for (const [name, seconds] of Object.entries(ALARMS.queueAgeSeconds)) {
      const { queue } = queues.named(name);
      this.alarm(
        `${functionName({ handler: name })}AgeAlarm`,
        `The oldest message of the ${name} queue has waited ${seconds / 60} minutes`,
        queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1), statistic: 'Maximum' }),
        seconds,
        5,
      );
    }
  }

  private apiAlarm(api: apigw.HttpApi): void {
    const period = Duration.minutes(5);
    const rate = new cloudwatch.MathExpression({
      expression: '100 * errors / MAX([requests, 1])',
      usingMetrics: {
        errors: api.metricServerError({ period, statistic: 'Sum' }),
        requests: api.metricCount({ period, statistic: 'Sum' }),
      },
      period,
      label: 'API 5xx %',
    });
    this.alarm(
      'Api5xxAlarm',
      `Over ${ALARMS.api5xxPercent}% of API responses were 5xx for 10 minutes`,
      rate,
      ALARMS.api5xxPercent,
      2,
    );
  }

  private tableAlarm(table: dynamodb.Table): void {
    const period = Duration.minutes(5);
    const throttles = new cloudwatch.MathExpression({
      expression: 'reads + writes',
      usingMetrics: {
        reads: table.metric('ReadThrottleEvents', { period, statistic: 'Sum' }),
        writes: table.metric('WriteThrottleEvents', { period, statistic: 'Sum' }),
      },
      period,
      label: 'table throttle events',
    });
    this.alarm(
      'TableThrottlesAlarm',
      `DynamoDB throttled ${ALARMS.tableThrottles} reads or writes of the table in 5 minutes (a hot key, or the account's table limits)`,
      throttles,
      ALARMS.tableThrottles,
    );
  }

  /** The reputation guard (shared/emails/reputation.ts) paused a project: its EMF metric, from the email-status worker. */
  private reputationGuardAlarm(): void {
    this.alarm(
      'ProjectSendingPausedAlarm',
      "The reputation guard paused a project's sending (its bounce or complaint rate over the last 24 hours): npm run project -- show, then resume once fixed",
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: 'ProjectSendingPaused',
        statistic: 'Sum',
        period: Duration.minutes(5),
      }),
      1,
    );
  }

  /**
   * Emails sent but their SES events not received: the sender's `Sent` (EMF) against the messages SNS
   * (and test mode) put on the ses-events queue, over 15 minutes. Either missing counts as none, so
   * 15 minutes of sends and no event at all breach; so do fewer events than sends (ALARMS.sesEventsPerSent),
   * which is some of the configuration sets publishing to a topic that is gone. Fix: npm run ses-reconcile.
   */
  private sesEventsAlarm(queues: Queues): void {
    const period = Duration.minutes(15);
    const events = queues.named('ses-events').queue.metric('NumberOfMessagesSent', { statistic: 'Sum', period });
    const sent = new cloudwatch.Metric({ namespace: METRICS_NAMESPACE, metricName: 'Sent', statistic: 'Sum', period });
    this.alarm(
      'SesEventsMissingAlarm',
      'Emails were sent in the last 15 minutes but fewer SES events arrived than emails (none at all, or some configuration sets publish to a topic that is gone): npm run ses-reconcile (README "Operating")',
      new cloudwatch.MathExpression({
        expression: `IF(FILL(sent, 0) > 0 AND FILL(events, 0) < ${ALARMS.sesEventsPerSent} * FILL(sent, 0), 1, 0)`,
        usingMetrics: { sent, events },
        period,
        label: 'sent without SES events',
      }),
      1,
    );
  }

  private concurrencyAlarm(): void {
    const quota = lambdaConcurrencyQuota(this);
    const metric = new cloudwatch.Metric({
      namespace: 'AWS/Lambda',
      metricName: 'ConcurrentExecutions',
      statistic: 'Maximum',
      period: Duration.minutes(1),
    });
    this.alarm(
      'ConcurrencyAlarm',
      `The account's Lambda concurrency reached ${ALARMS.concurrencyShare * 100}% of its quota (${quota}) for 3 minutes: raise the quota before requests are throttled`,
      metric,
      Math.floor(quota * ALARMS.concurrencyShare),
      3,
    );
  }

  private makeDashboard(props: MonitoringProps): cloudwatch.Dashboard {
    const period = Duration.minutes(1);
    const custom = (name: string, dimensions?: Record<string, string>) =>
      new cloudwatch.Metric({
        namespace: METRICS_NAMESPACE,
        metricName: name,
        dimensionsMap: dimensions,
        statistic: 'Sum',
        period,
        label: dimensions ? Object.values(dimensions).join(' ') : name,
      });
    const routeFunctions = [
      ...routes.map((route) => ({
        label: `${route.method} ${route.path}`,
        fn: props.functions.get(functionName(route)),
      })),
      { label: 'other routes (404/405)', fn: props.functions.get(functionName(fallbackRoute)) },
    ].filter((r) => r.fn);
    const queues = [...props.queues.byName.entries()];
    const dashboard = new cloudwatch.Dashboard(this, 'Dashboard', {
      dashboardName: `${Stack.of(this).stackName}-golden-signals`,
      defaultInterval: Duration.hours(3),
    });
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'API latency (ms)',
        left: [
          props.api.metricLatency({ period, statistic: 'p50', label: 'p50' }),
          props.api.metricLatency({ period, statistic: 'p99', label: 'p99' }),
        ],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'API responses',
        left: [
          props.api.metricCount({ period, label: 'requests' }),
          props.api.metricClientError({ period, label: '4xx' }),
          props.api.metricServerError({ period, label: '5xx' }),
        ],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Errors by route',
        left: routeFunctions.map(({ label, fn }) => fn!.metricErrors({ period, label })),
        legendPosition: cloudwatch.LegendPosition.RIGHT,
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'p99 duration by route (ms)',
        left: routeFunctions.map(({ label, fn }) => fn!.metricDuration({ period, statistic: 'p99', label })),
        legendPosition: cloudwatch.LegendPosition.RIGHT,
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Sends per second against the SES rate',
        left: [
          new cloudwatch.MathExpression({
            expression: 'sent / 60',
            usingMetrics: { sent: custom('Sent') },
            period,
            label: 'sent/s',
          }),
          new cloudwatch.MathExpression({
            expression: 'throttled / 60',
            usingMetrics: { throttled: custom('SendThrottled') },
            period,
            label: 'throttled by SES/s',
          }),
        ],
        leftAnnotations: [{ value: props.sendRate, label: `SES rate (${props.sendRate}/s)` }],
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'SES bounce and complaint rates',
        left: [
          new cloudwatch.Metric({
            namespace: 'AWS/SES',
            metricName: 'Reputation.BounceRate',
            statistic: 'Maximum',
            period: Duration.minutes(15),
            label: 'bounce rate',
          }),
          new cloudwatch.Metric({
            namespace: 'AWS/SES',
            metricName: 'Reputation.ComplaintRate',
            statistic: 'Maximum',
            period: Duration.minutes(15),
            label: 'complaint rate',
          }),
        ],
        leftAnnotations: [
          { value: ALARMS.sesBounceRate, label: 'bounce alarm' },
          { value: ALARMS.sesComplaintRate, label: 'complaint alarm' },
        ],
        width: 12,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Queue backlogs (messages visible)',
        left: queues.map(([name, { queue }]) =>
          queue.metricApproximateNumberOfMessagesVisible({ period, label: name }),
        ),
        legendPosition: cloudwatch.LegendPosition.RIGHT,
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Age of the oldest message (s)',
        left: queues.map(([name, { queue }]) =>
          queue.metricApproximateAgeOfOldestMessage({ period, statistic: 'Maximum', label: name }),
        ),
        legendPosition: cloudwatch.LegendPosition.RIGHT,
        width: 8,
      }),
      new cloudwatch.GraphWidget({
        title: 'Dead-letter queue depths',
        left: queues.map(([name, { dlq }]) =>
          dlq.metricApproximateNumberOfMessagesVisible({ period, label: `${name} DLQ` }),
        ),
        legendPosition: cloudwatch.LegendPosition.RIGHT,
        width: 8,
      }),
    );
    dashboard.addWidgets(
      new cloudwatch.GraphWidget({
        title: 'Webhook deliveries by outcome',
        left: ['delivered', 'retrying', 'failed'].map((outcome) => custom('WebhookDeliveries', { Outcome: outcome })),
        width: 12,
      }),
      new cloudwatch.GraphWidget({
        title: 'Workers: errors and throttles',
        left: workers.map((w) =>
          props.functions.get(workerFunctionName(w.name))!.metricErrors({ period, label: `${w.name} errors` }),
        ),
        right: workers.map((w) =>
          props.functions.get(workerFunctionName(w.name))!.metricThrottles({ period, label: `${w.name} throttles` }),
        ),
        width: 12,
      }),
    );
    return dashboard;
  }
}
