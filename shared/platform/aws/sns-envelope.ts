/**
 * The body of an SQS message that SNS delivered: the SNS envelope JSON (`Type`, `MessageId`,
 * `TopicArn`, `Message`, ...) around the published message, or the published message alone
 * when the subscription has raw message delivery. Every consumer of an SNS-fed queue (SES
 * events, SES receipt notifications) reads its message through `parseSnsEnvelope`; what the
 * message must contain is the consumer's own check, with its own error. `snsEnvelope` builds one,
 * for those who put SES events on the queues as SNS would (the local SES stand-in, the sender's
 * test mode: shared/emails/test-mode-send.ts).
 */
import { randomUUID } from 'node:crypto';
import { nowIso } from '../clock';

/** The topic ARN simulated events name (consumers never read it): the local runtime's SES events topic. */
export const SIMULATED_SES_EVENTS_TOPIC_ARN = 'arn:aws:sns:ap-southeast-2:000000000000:ses-events';

/** The body is not JSON, is an SNS message other than a Notification, or wraps a Message that is not JSON. */
export class MalformedSnsEnvelope extends Error {
  override name = 'MalformedSnsEnvelope';
}

/**
 * The published message, parsed as JSON: the envelope's `Message` when the body is an SNS
 * envelope (it has a `Type`), else the body itself (raw message delivery).
 */
export function parseSnsEnvelope(body: string): unknown {
  const parsed = parseJson(body, 'not JSON');
  if (!parsed || typeof parsed !== 'object' || !('Type' in parsed) || parsed.Type === undefined) return parsed;
  const envelope = parsed as { Type: unknown; Message?: unknown };
  if (envelope.Type !== 'Notification' || typeof envelope.Message !== 'string')
    throw new MalformedSnsEnvelope(`an SNS ${String(envelope.Type)} message without a Message`);
  return parseJson(envelope.Message, 'an SNS envelope around something that is not JSON');
}

function parseJson(text: string, problem: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedSnsEnvelope(problem);
  }
}

/** SNS's envelope around a message, as an SQS subscription without raw message delivery receives it. */
export function snsEnvelope(message: unknown, topicArn = SIMULATED_SES_EVENTS_TOPIC_ARN) {
  return {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: topicArn,
    Message: JSON.stringify(message),
    Timestamp: nowIso(),
    SignatureVersion: '1',
    Signature: 'simulated',
    SigningCertURL: 'https://sns.ap-southeast-2.amazonaws.com/simulated.pem',
    UnsubscribeURL: 'https://sns.ap-southeast-2.amazonaws.com/?Action=Unsubscribe',
  };
}
