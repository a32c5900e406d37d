/**
 * Every queue of functions/workers.ts, each with its DLQ (14 days to inspect and redrive) and an
 * alarm as soon as anything lands there. Encrypted (SSE-SQS) and TLS-only. Looked up by the
 * queue's name, as functions/workers.ts and `needs.queues` name it.
 */
import { Duration } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as sqs from 'aws-cdk-lib/aws-sqs';
import { Construct } from 'constructs';
import { functionName } from '../../functions/routes';
import {
  deployedVisibilityTimeoutSeconds,
  QUEUE_MAX_MESSAGE_BYTES,
  queues as queueDefinitions,
  queueUrlVariable,
  type QueueDefinition,
} from '../../functions/workers';
import type { ApiFunction } from '../api-function';

export interface QueuePair {
  queue: sqs.Queue;
  dlq: sqs.Queue;
}

export class Queues extends Construct {
  /** every queue with its DLQ, by name */
  readonly byName = new Map<string, QueuePair>();

  constructor(scope: Construct, id: string) {
    super(scope, id);
    for (const definition of queueDefinitions) this.byName.set(definition.name, this.create(definition));
  }

  /** The queue `name` and its DLQ; a name functions/workers.ts does not define is a mistake in the code, so it throws. */
  named(name: string): QueuePair {
    const entry = this.byName.get(name);
    if (!entry) throw new Error(`unknown queue ${name} (functions/workers.ts)`);
    return entry;
  }

  /** Lets `fn` send to the named queues, and tells it their URLs (QUEUE_URL_<NAME>, as locally). */
  allowSending(fn: ApiFunction, names: readonly string[]): void {
    for (const name of names) {
      const { queue } = this.named(name);
      queue.grantSendMessages(fn);
      fn.addEnvironment(queueUrlVariable(name), queue.queueUrl);
    }
  }

  private create(definition: QueueDefinition): QueuePair {
    const id = functionName({ handler: definition.name });
    const dlq = new sqs.Queue(this, `${id}DeadLetterQueue`, {
      retentionPeriod: Duration.days(14),
      encryption: sqs.QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
    });
    const queue = new sqs.Queue(this, `${id}Queue`, {
      visibilityTimeout: Duration.seconds(deployedVisibilityTimeoutSeconds(definition)),
      // SQS's longest: a message waits out a two-week outage of its consumer
      retentionPeriod: Duration.days(14),
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
