/** The one reader of SES notifications (shared/platform/aws/ses-notification.ts): each kind the workers read, and what it refuses. */
import { MalformedSesNotification, readSesNotification, sesKind } from '../../shared/platform/aws/ses-notification';

const mail = {
  messageId: 'ses-1',
  timestamp: '2026-11-27T00:00:00.000Z',
  source: 'a@example.com',
  destination: ['b@example.com'],
  tags: { 'ses:configuration-set': ['cs'] },
};
const body = (event: object, enveloped = true) =>
  enveloped ? JSON.stringify({ Type: 'Notification', Message: JSON.stringify(event) }) : JSON.stringify(event);

describe('readSesNotification', () => {
  it.each([
    [
      'Delivery',
      {
        eventType: 'Delivery',
        mail,
        delivery: { timestamp: 't', recipients: ['b@example.com'], smtpResponse: '250 ok', processingTimeMillis: 12 },
      },
    ],
    [
      'Bounce',
      {
        eventType: 'Bounce',
        mail,
        bounce: {
          bounceType: 'Permanent',
          bounceSubType: 'General',
          bouncedRecipients: [{ emailAddress: 'b@example.com', diagnosticCode: '550' }],
        },
      },
    ],
    [
      'Complaint',
      {
        eventType: 'Complaint',
        mail,
        complaint: {
          complainedRecipients: [{ emailAddress: 'b@example.com' }],
          complaintFeedbackType: 'abuse',
          complaintSubType: null,
        },
      },
    ],
    [
      'DeliveryDelay',
      {
        eventType: 'DeliveryDelay',
        mail,
        deliveryDelay: {
          delayType: 'TransientCommunicationFailure',
          delayedRecipients: [{ emailAddress: 'b@example.com' }],
        },
      },
    ],
    ['Open', { eventType: 'Open', mail, open: { timestamp: 't', userAgent: 'ua', ipAddress: '192.0.2.1' } }],
    [
      'Click',
      {
        eventType: 'Click',
        mail,
        click: {
          link: 'https://example.com',
          timestamp: 't',
          userAgent: 'ua',
          ipAddress: null,
          linkTags: { a: ['b'] },
        },
      },
    ],
    ['Reject', { eventType: 'Reject', mail, reject: { reason: 'Bad content' } }],
    [
      'RenderingFailure',
      { eventType: 'Rendering Failure', mail, failure: { errorMessage: 'no var', templateName: 't' } },
    ],
    ['Subscription', { eventType: 'Subscription', mail, subscription: { contactList: 'l', newTopicPreferences: {} } }],
    ['Send', { eventType: 'Send', mail, send: {} }],
    [
      'Received',
      {
        notificationType: 'Received',
        mail,
        receipt: { recipients: ['b@example.com'], action: { type: 'S3', bucketName: 'b', objectKey: 'k' } },
      },
    ],
  ])('reads a %s, enveloped or bare, as SES sent it', (kind, event) => {
    expect(readSesNotification(body(event))).toEqual(event);
    expect(readSesNotification(body(event, false))).toEqual(event);
    expect(sesKind(readSesNotification(body(event)))).toBe(kind);
  });

  it('reads the older format (notificationType) by the same kinds', () => {
    const event = { notificationType: 'Bounce', mail, bounce: { bounceType: 'Transient', bouncedRecipients: [] } };
    expect(sesKind(readSesNotification(body(event)))).toBe('Bounce');
  });

  it('keeps the fields SES adds that it does not name', () => {
    const event = {
      eventType: 'Bounce',
      mail: { ...mail, sendingAccountId: '1' },
      bounce: { bounceType: 'Permanent', bouncedRecipients: [], reportingMTA: 'x' },
      extra: 1,
    };
    expect(readSesNotification(body(event))).toEqual(event);
  });

  it('passes a kind it does not know, with its mail', () => {
    expect(sesKind(readSesNotification(body({ eventType: 'SomethingNew', mail })))).toBeUndefined();
  });

  it.each([
    ['no mail', { eventType: 'Delivery' }],
    ['a mail without messageId', { eventType: 'Delivery', mail: { source: 'a@example.com' } }],
    ['tags that are not lists', { eventType: 'Delivery', mail: { ...mail, tags: { a: 'b' } } }],
    ['a Bounce without its bounce', { eventType: 'Bounce', mail }],
    ['a Bounce without recipients', { eventType: 'Bounce', mail, bounce: { bounceType: 'Permanent' } }],
    [
      'a bounced recipient without emailAddress',
      { eventType: 'Bounce', mail, bounce: { bounceType: 'Permanent', bouncedRecipients: [{}] } },
    ],
    ['a Complaint without recipients', { eventType: 'Complaint', mail, complaint: {} }],
    ['a Click whose link is no string', { eventType: 'Click', mail, click: { link: 5 } }],
    ['a receipt without its action', { notificationType: 'Received', mail, receipt: { recipients: [] } }],
    ['JSON that is no notification', { hello: 'world' }],
  ])('refuses %s', (_, event) => {
    expect(() => readSesNotification(body(event))).toThrow(MalformedSesNotification);
  });
});
