/**
 * What SES publishes for a send when its configuration set has an SNS event destination,
 * simulated for the local runtime: the SES event JSON (event publishing format), wrapped in an
 * SNS notification envelope, put on every queue subscribed to the events topic whose body
 * filter matches (shared/platform/aws/ses-events-topic.ts `subscribedQueues`), as SNS -> SQS would.
 *
 * Recipients behave as the one table of simulated outcomes says (shared/emails/simulated-outcomes.ts,
 * which the sender's test mode reads too): SES's mailbox simulator addresses, and `open@` and
 * `click@simulator.amazonses.com` for engagement. Live sends only reach this stand-in (test mode
 * never calls SES), so Resend's resend.dev test addresses are not simulated here: a live send to
 * them is real mail on AWS.
 */
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { queueUrlVariable } from '../../functions/workers';
import {
  simulatedEvents as simulate,
  type SesEvent,
  type SimulatedRequest,
  type Tracking,
} from '../../shared/emails/simulated-outcomes';
import { subscribedQueues } from '../../shared/platform/aws/ses-events-topic';
import { SIMULATED_SES_EVENTS_TOPIC_ARN, snsEnvelope } from '../../shared/platform/aws/sns-envelope';
import { nowDate } from '../../shared/platform/clock';

export { snsEnvelope };
export { trackedLinks, type Tracking } from '../../shared/emails/simulated-outcomes';
export { SIMULATED_SES_EVENTS_TOPIC_ARN as LOCAL_SES_EVENTS_TOPIC_ARN };

/** The SES events of one send the local SES accepted (a live send), in the order SES would publish them. */
export const simulatedEvents = (
  request: Record<string, any>,
  messageId: string,
  now = nowDate(),
  tracking: Tracking = { open: false, click: false },
): SesEvent[] => simulate(request as SimulatedRequest, messageId, { now, tracking, testMode: false });

/** Publishes to the subscribed queues (their URLs from QUEUE_URL_<NAME>, set by the runtime), honouring each body filter. */
export async function publishSesEvents(sqs: SQSClient, events: SesEvent[]): Promise<void> {
  for (const event of events) {
    for (const queue of subscribedQueues(event)) {
      const url = process.env[queueUrlVariable(queue)];
      if (!url) continue; // queues not created yet: nothing subscribed
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(snsEnvelope(event)) }));
    }
  }
}
