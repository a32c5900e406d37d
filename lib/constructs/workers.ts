/**
 * The consumers of functions/workers.ts: one function per worker, with its trigger.
 *
 * - `queue`: an SQS event source on the worker's queue, reporting partial batch failures.
 * - `schedule`: an EventBridge rule; EventBridge's finest rate is 1 minute, so shorter periods run every minute.
 * - `stream`: the table's stream from its oldest record, filtered like the local stream poller
 *   filters (lib/local/lambda/event-filter.ts), bisecting a failing batch.
 *
 * What a worker does besides consuming its trigger comes from its `needs`, granted by the stack.
 */
import { Duration, Validations } from 'aws-cdk-lib';
import type * as dynamodb from 'aws-cdk-lib/aws-dynamodb';
import * as events from 'aws-cdk-lib/aws-events';
import * as eventTargets from 'aws-cdk-lib/aws-events-targets';
import * as lambda from 'aws-cdk-lib/aws-lambda';
import { DynamoEventSource, SqsEventSource } from 'aws-cdk-lib/aws-lambda-event-sources';
import { Construct } from 'constructs';
import { queueTrigger, queueUrlVariable, workerFunctionName, workers as workerDefinitions, workerTimeoutSeconds } from '../../functions/workers';
import type { FunctionFactory } from './function-factory';
import type { Queues } from './queues';

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
  if (!Number.isFinite(rate) || rate < 1) throw new Error(`sesSendRate must be a number of emails a second (at least 1), got ${JSON.stringify(value)}`);
  return rate;
}

export class Workers extends Construct {
  constructor(scope: Construct, id: string, props: WorkersProps) {
    super(scope, id);
    for (const worker of workerDefinitions) {
      const fnId = workerFunctionName(worker.name);
      const fn = props.functions.makeFunction(this, fnId, { handler: worker.handler, needs: worker.needs, timeout: Duration.seconds(workerTimeoutSeconds(worker)) });
      if (worker.publicApiUrl) fn.addEnvironment('PUBLIC_API_URL', props.apiUrl);
      const trigger = worker.trigger.kind === 'queue' ? queueTrigger(worker.trigger, sesSendRate(this)) : worker.trigger;
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
            filters: trigger.filter ? [lambda.FilterCriteria.filter(trigger.filter)] : undefined,
          }),
        );
        props.table.grantStreamRead(fn);
        Validations.of(fn).acknowledge({ id: 'AwsSolutions-IAM5[Resource::*]', reason: 'dynamodb:ListStreams (part of reading the stream) has no resource-level permission' });
      }
    }
  }
}
