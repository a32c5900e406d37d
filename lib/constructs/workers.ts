/**
 * The consumers of functions/workers.ts: one function per worker, with its trigger.
 *
 * - `queue`: an SQS event source on the worker's queue, reporting partial batch failures.
 * - `schedule`: an EventBridge rule; EventBridge's finest rate is 1 minute, so shorter periods run every minute.
 * - `stream`: the table's stream from its oldest record, filtered like the local stream poller
 *   filters (local/lambda/event-filter.ts), bisecting a failing batch. A batch that still fails
 *   after its retries, or whose records are older than STREAM_MAX_RECORD_AGE, is not dropped
 *   silently: its shard and sequence numbers go to the stream-failures queue (14 days, an alarm at
 *   the first message), from which README "Operating" replays it within the stream's 24 hours.
 *
 * What a worker does besides consuming its trigger comes from its `needs`, granted by the stack.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsDlq, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { workerMemoryMb } from '../../functions/needs';
import {
  queueTrigger,
  queueUrlVariable,
  workerFunctionName,
  workers as workerDefinitions,
  workerTimeoutSeconds,
} from '../../functions/workers';
import type { FunctionFactory } from './function-factory';
import type { Queues } from './queues';
import { fractionFromContext, inboxForwardingDomain, reportsDomain, wholeNumberFromContext } from '../context';
import { guardThresholds } from '../../shared/emails/reputation-thresholds';

export interface WorkersProps {
  /** makes each worker's function with the grants of its `needs` */
  functions: FunctionFactory;
  queues: Queues;
  /** the table whose stream feeds the `stream` workers */
  table: dynamodb.Table;
  /** the API's base URL, for the workers that write links to it into emails (`publicApiUrl`) */
  apiUrl: string;
}

/** The account's send rate the send queues are sized for: CDK context `sesSendRate` (`cdk deploy -c sesSendRate=200`), default 14 (functions/workers.ts `senderScaling`). */
export function sesSendRate(scope: Construct): number {
  const value = scope.node.tryGetContext('sesSendRate');
  const rate = value === undefined ? 14 : Number(value);
  if (!Number.isFinite(rate) || rate < 1)
    throw new Error(`sesSendRate must be a number of emails a second (at least 1), got ${JSON.stringify(value)}`);
  return rate;
}

/** A stream batch still unhandled this long after it was written goes to the stream-failures queue (the stream keeps records 24 hours). */
export const STREAM_MAX_RECORD_AGE = Duration.hours(6);

export class Workers extends Construct {
  /** where the stream consumers' failed batches go (their shard and sequence numbers) */
  readonly streamFailures: sqs.Queue;

  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    this.streamFailures = new sqs.Queue(this, 'StreamFailuresQueue', {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    new cloudwatch.Alarm(this, 'StreamFailuresAlarm', {
      alarmDescription:
        'A batch of table stream records failed all its retries or grew too old: replay it from the stream-failures queue within 24 hours (README "Operating")',
      metric: this.streamFailures.metricApproximateNumberOfMessagesVisible({ period: Duration.minutes(1) }),
      threshold: 1,
      comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_OR_EQUAL_TO_THRESHOLD,
      evaluationPeriods: 1,
      treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
    });
    Validations.of(this.streamFailures).acknowledge({
      id: 'AwsSolutions-SQS3',
      reason: 'it is itself the destination of failed stream batches, watched by an alarm at its first message',
    });
    for (const worker of workerDefinitions) {
      const fnId = workerFunctionName(worker.name);
      const fn = props.functions.makeFunction(this, fnId, {
        handler: worker.handler,
        needs: worker.needs,
        timeout: Duration.seconds(workerTimeoutSeconds(worker)),
        memoryMb: workerMemoryMb(worker),
      });
      if (worker.publicApiUrl) fn.addEnvironment('PUBLIC_API_URL', props.apiUrl);
      const forwarding = inboxForwardingDomain(this);
      if (worker.forwardingDomain && forwarding) fn.addEnvironment('INBOX_FORWARDING_DOMAIN', forwarding);
      const reports = reportsDomain(this);
      if (worker.reportsDomain && reports) fn.addEnvironment('REPORTS_DOMAIN', reports);
      if (worker.name === REPUTATION_GUARD_WORKER)
        for (const [name, value] of Object.entries(reputationGuardEnvironment(this))) fn.addEnvironment(name, value);
      const trigger =
        worker.trigger.kind === 'queue' ? queueTrigger(worker.trigger, sesSendRate(this)) : worker.trigger;
      if (trigger.kind === 'queue') {
        const { queue } = props.queues.named(trigger.queue);
        // Its own queue's URL, for the calls its event source mapping allows there (ChangeMessageVisibility: a retry
        // that is the same message later); sending to it would be a grant of its needs.
        fn.addEnvironment(queueUrlVariable(trigger.queue), queue.queueUrl);
        fn.addEventSource(
          new SqsEventSource(queue, {
            batchSize: trigger.batchSize,
            reportBatchItemFailures: true,
            ...(trigger.maxConcurrency ? { maxConcurrency: Math.max(2, trigger.maxConcurrency) } : {}),
          }),
        );
      } else if (trigger.kind === 'schedule') {
        new events.Rule(this, `${fnId}Schedule`, {
          schedule: events.Schedule.rate(Duration.seconds(Math.max(60, trigger.everySeconds))),
          targets: [new eventTargets.LambdaFunction(fn)],
        });
      } else {
        fn.addEventSource(
          new DynamoEventSource(props.table, {
            startingPosition: lambda.StartingPosition.TRIM_HORIZON,
            batchSize: trigger.batchSize,
            retryAttempts: trigger.maxRetryAttempts,
            reportBatchItemFailures: true,
            bisectBatchOnError: true,
            onFailure: new SqsDlq(this.streamFailures),
            maxRecordAge: STREAM_MAX_RECORD_AGE,
            filters: trigger.filter ? [lambda.FilterCriteria.filter(trigger.filter)] : undefined,
            ...(worker.name === WEBHOOK_FANOUT_WORKER ? { parallelizationFactor: WEBHOOK_FANOUT_PARALLELIZATION } : {}),
          }),
        );
        props.table.grantStreamRead(fn);
        Validations.of(fn).acknowledge({
          id: 'AwsSolutions-IAM5[Resource::*]',
          reason: 'dynamodb:ListStreams (part of reading the stream) has no resource-level permission',
        });
      }
    }
  }
}

/**
 * The webhook fan-out reads each stream shard in this many batches at once (Lambda's
 * ParallelizationFactor, 1-10): at 1 one slow batch (a project's many webhooks) held every event of
 * its shard behind it. Records of one item key still go to one batch in order, and order does not
 * matter here anyway: each event is an insert of its own item, and the fan-out is idempotent (a
 * delivery's id is derived from webhook and event, put only if absent: shared/webhooks/fanout.ts).
 */
export const WEBHOOK_FANOUT_WORKER = 'webhook-fanout';
export const WEBHOOK_FANOUT_PARALLELIZATION = 4;

/** The worker that pauses a project past its bounce or complaint rate (shared/emails/reputation.ts). */
export const REPUTATION_GUARD_WORKER = 'email-status';

/**
 * The reputation guard's thresholds, the same for every project: CDK context `reputationBounceRate`
 * (0.04), `reputationComplaintRate` (0.0008), `reputationMinSends` (200 sends in the last 24 hours)
 * and `reputationMinComplaints` (3 complaints in the last 24 hours before the complaint rate counts).
 */
export function reputationGuardEnvironment(scope: Construct): Record<string, string> {
  const defaults = guardThresholds({});
  return {
    REPUTATION_BOUNCE_RATE: String(fractionFromContext(scope, 'reputationBounceRate', defaults.bounceRate)),
    REPUTATION_COMPLAINT_RATE: String(fractionFromContext(scope, 'reputationComplaintRate', defaults.complaintRate)),
    REPUTATION_MIN_SENDS: String(wholeNumberFromContext(scope, 'reputationMinSends', defaults.minSends, 1, 'sends')),
    REPUTATION_MIN_COMPLAINTS: String(
      wholeNumberFromContext(scope, 'reputationMinComplaints', defaults.minComplaints, 1, 'complaints'),
    ),
  };
}
