/**
 * The SES events topic: SES publishes each send's events to it (the event destinations of the
 * configuration sets that the domain routes create), and the feedback queues subscribe with the
 * body filters of `sesEventSubscriptions` (functions/workers.ts), the same list and filters the
 * local SES front publishes through. Encrypted with a key SES may use; only SES of this account
 * may publish; SNS delivers to the SSE-SQS queues. Feedback that waits in a queue over 5 minutes
 * raises an alarm.
 */
import { Duration, Stack } from 'aws-cdk-lib';
import * as cloudwatch from 'aws-cdk-lib/aws-cloudwatch';
import * as iam from 'aws-cdk-lib/aws-iam';
import * as kms from 'aws-cdk-lib/aws-kms';
import * as sns from 'aws-cdk-lib/aws-sns';
import { SqsSubscription } from 'aws-cdk-lib/aws-sns-subscriptions';
import { Construct } from 'constructs';
import { functionName } from '../../functions/routes';
import { sesEventSubscriptions } from '../../functions/workers';
import { serviceConfigurationSetsArn, type ApiFunction } from '../api-function';
import type { Queues } from './queues';

export interface SesEventsProps {
  /** the subscribed queues are looked up here by name */
  queues: Queues;
}

/** The SES events topic's name: `<stack name>-ses-events` (SNS allows 256 letters, digits, hyphens and underscores; stack names are letters, digits and hyphens). */
export const sesEventsTopicName = (stackName: string): string => `${stackName}-ses-events`;

export class SesEvents extends Construct {
  readonly topic: sns.Topic;

  constructor(scope: Construct, id: string, props: SesEventsProps) {
    super(scope, id);
    // Only SES of this account, publishing for the service's own configuration sets (es-*), may use
    // the key and the topic: the confused-deputy conditions AWS recommends for SES.
    const stack = Stack.of(this);
    const fromOurSes = {
      StringEquals: { 'aws:SourceAccount': stack.account },
      ArnLike: { 'aws:SourceArn': serviceConfigurationSetsArn(stack) },
    };
    const key = new kms.Key(this, 'Key', { enableKeyRotation: true, description: 'SES events topic' });
    key.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['kms:GenerateDataKey*', 'kms:Decrypt'],
        resources: ['*'],
        conditions: fromOurSes,
      }),
    );
    // A fixed name, derived from the stack's: the configuration sets made at run time keep the topic's
    // ARN, so a topic replaced (its logical id refactored, the stack destroyed and deployed again with
    // the retained table) comes back at the same ARN and their events keep arriving. A replacement
    // under another name needs `npm run ses-reconcile` (lib/ses-reconcile.ts).
    this.topic = new sns.Topic(this, 'Topic', {
      masterKey: key,
      enforceSSL: true,
      topicName: sesEventsTopicName(stack.stackName),
    });
    this.topic.addToResourcePolicy(
      new iam.PolicyStatement({
        principals: [new iam.ServicePrincipal('ses.amazonaws.com')],
        actions: ['sns:Publish'],
        resources: [this.topic.topicArn],
        conditions: fromOurSes,
      }),
    );
    for (const subscription of sesEventSubscriptions) {
      const { queue } = props.queues.named(subscription.queue);
      // SES feedback that waits is mail sent to suppressed addresses, or statuses that lag: alarm on a backlog
      new cloudwatch.Alarm(this, `${functionName({ handler: subscription.queue })}BacklogAlarm`, {
        alarmDescription: `SES events have waited over 5 minutes in the ${subscription.queue} queue (its consumer is failing or too slow)`,
        metric: queue.metricApproximateAgeOfOldestMessage({ period: Duration.minutes(1) }),
        threshold: 300,
        comparisonOperator: cloudwatch.ComparisonOperator.GREATER_THAN_THRESHOLD,
        evaluationPeriods: 5,
        treatMissingData: cloudwatch.TreatMissingData.NOT_BREACHING,
      });
      const filter = subscription.bodyFilter;
      this.topic.addSubscription(
        new SqsSubscription(queue, {
          ...(filter
            ? {
                filterPolicyWithMessageBody: {
                  eventType: sns.FilterOrPolicy.filter(
                    sns.SubscriptionFilter.stringFilter({ allowlist: [...filter.eventType] }),
                  ),
                },
              }
            : {}),
        }),
      );
    }
  }

  /** Functions that create or change configuration-set event destinations need the topic they point at (SES_EVENTS_TOPIC_ARN). */
  tellDestinationMakers(fn: ApiFunction, sesActions: readonly string[]): void {
    if (sesActions.some((a) => a.endsWith('ConfigurationSetEventDestination')))
      fn.addEnvironment('SES_EVENTS_TOPIC_ARN', this.topic.topicArn);
  }
}
