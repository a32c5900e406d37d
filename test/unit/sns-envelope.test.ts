/** The one reader of SNS envelopes in SQS bodies: what it unwraps, what it refuses, and how a consumer's own error carries it. */
import { MalformedSnsEnvelope, parseSnsEnvelope } from '../../shared/platform/aws/sns-envelope';
import { MalformedSesNotification, readSesNotification } from '../../shared/platform/aws/ses-notification';
import { MalformedReceipt, receiptFromBody } from '../../shared/receiving/inbound';

const envelope = (fields: object) =>
  JSON.stringify({ MessageId: 'sns-1', TopicArn: 'arn:aws:sns:ap-southeast-2:123456789012:t', ...fields });

describe('parseSnsEnvelope', () => {
  it("answers a Notification's Message, parsed", () => {
    expect(
      parseSnsEnvelope(envelope({ Type: 'Notification', Message: JSON.stringify({ eventType: 'Bounce' }) })),
    ).toEqual({ eventType: 'Bounce' });
    expect(parseSnsEnvelope(envelope({ Type: 'Notification', Message: '"text"' }))).toBe('text');
  });

  it('answers a body without Type as the message itself (raw message delivery)', () => {
    expect(parseSnsEnvelope(JSON.stringify({ eventType: 'Bounce' }))).toEqual({ eventType: 'Bounce' });
    expect(parseSnsEnvelope('null')).toBeNull();
    expect(parseSnsEnvelope('[1]')).toEqual([1]);
  });

  it.each([
    ['not JSON', 'nope'],
    ['an envelope without Message', envelope({ Type: 'Notification' })],
    ['a Message that is not a string', envelope({ Type: 'Notification', Message: { a: 1 } })],
    ['a Message that is not JSON', envelope({ Type: 'Notification', Message: 'nope' })],
    ['a subscription confirmation', envelope({ Type: 'SubscriptionConfirmation', Message: '{}' })],
    ['a Type of null', envelope({ Type: null, Message: '{}' })],
  ])('refuses %s with MalformedSnsEnvelope', (_, body) => {
    expect(() => parseSnsEnvelope(body)).toThrow(MalformedSnsEnvelope);
  });
});

describe('its consumers', () => {
  it.each([
    ['SES events (email status, suppression feedback)', readSesNotification, MalformedSesNotification],
    ['inbound', receiptFromBody, MalformedReceipt],
  ] as const)(
    '%s: an unreadable envelope is its own malformed error, caused by MalformedSnsEnvelope',
    (_, parse, Malformed) => {
      let thrown: unknown;
      try {
        parse(envelope({ Type: 'UnsubscribeConfirmation' }));
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(Malformed);
      expect((thrown as Error).cause).toBeInstanceOf(MalformedSnsEnvelope);
    },
  );
});
