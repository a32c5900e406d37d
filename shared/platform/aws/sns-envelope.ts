/**
 * The body of an SQS message that SNS delivered: the SNS envelope JSON (`Type`, `MessageId`,
 * `TopicArn`, `Message`, ...) around the published message, or the published message alone
 * when the subscription has raw message delivery. Every consumer of an SNS-fed queue (SES
 * events, SES receipt notifications) reads its message through `parseSnsEnvelope`; what the
 * message must contain is the consumer's own check, with its own error.
 */

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
  if (envelope.Type !== 'Notification' || typeof envelope.Message !== 'string') throw new MalformedSnsEnvelope(`an SNS ${String(envelope.Type)} message without a Message`);
  return parseJson(envelope.Message, 'an SNS envelope around something that is not JSON');
}

function parseJson(text: string, problem: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    throw new MalformedSnsEnvelope(problem);
  }
}
