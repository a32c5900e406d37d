/** The suppression rules on single SES events, without I/O: what suppresses, what withdraws, what is unreadable (each event read as the worker reads it, readSesNotification). */
import { MalformedSesNotification, readSesNotification } from '../../shared/platform/aws/ses-notification';
import { decide } from '../../shared/suppressions/feedback';

const mail = { messageId: 'm-1', tags: { email_id: ['e-1'], project_id: ['p-1'] } };
const bounce = (bounceType: string, bounceSubType: string, recipients: object[]) => ({
  eventType: 'Bounce',
  mail,
  bounce: { bounceType, bounceSubType, bouncedRecipients: recipients },
});
const complaint = (feedback: string | undefined, recipients = [{ emailAddress: 'a@example.com' }]) => ({
  eventType: 'Complaint',
  mail,
  complaint: {
    complainedRecipients: recipients,
    ...(feedback === undefined ? {} : { complaintFeedbackType: feedback }),
  },
});

describe('readSesNotification', () => {
  it('unwraps an SNS notification envelope and accepts a bare event (raw delivery)', () => {
    const event = bounce('Permanent', 'General', []);
    expect(readSesNotification(JSON.stringify({ Type: 'Notification', Message: JSON.stringify(event) }))).toEqual(
      event,
    );
    expect(readSesNotification(JSON.stringify(event))).toEqual(event);
  });

  it.each([
    ['not JSON', 'nope'],
    ['an envelope without Message', JSON.stringify({ Type: 'Notification' })],
    ['an envelope around something that is not JSON', JSON.stringify({ Type: 'Notification', Message: 'nope' })],
    ['a subscription confirmation', JSON.stringify({ Type: 'SubscriptionConfirmation', Message: '{}' })],
    [
      'JSON that is no SES event',
      JSON.stringify({ Type: 'Notification', Message: JSON.stringify({ hello: 'world' }) }),
    ],
    ['null', 'null'],
  ])('refuses %s', (_, body) => {
    expect(() => readSesNotification(body)).toThrow(MalformedSesNotification);
  });
});

/** An event as the worker reads it from its queue. */
const read = (event: object) => readSesNotification(JSON.stringify(event));

describe('decide', () => {
  it('suppresses every recipient of a Permanent bounce, with the diagnostic code or a description', () => {
    const decision = decide(
      read(
        bounce('Permanent', 'NoEmail', [
          { emailAddress: 'One@Example.com', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
          { emailAddress: '"Two" <two@example.com>' },
        ]),
      ),
    );
    expect(decision).toEqual({
      suppress: [
        { email: 'one@example.com', source: 'bounce', subtype: 'NoEmail', reason: 'smtp; 550 5.1.1 user unknown' },
        {
          email: 'two@example.com',
          source: 'bounce',
          subtype: 'NoEmail',
          reason: 'Permanent bounce: the address does not exist',
        },
      ],
      withdraw: [],
    });
  });

  it('records a Permanent subtype the contract does not list as General, naming it in the reason', () => {
    const { suppress } = decide(
      read(bounce('Permanent', 'UnsubscribedRecipient', [{ emailAddress: 'a@example.com' }])),
    );
    expect(suppress[0]).toMatchObject({ subtype: 'General', reason: expect.stringContaining('UnsubscribedRecipient') });
  });

  it.each(['Transient', 'Undetermined'])('never suppresses for a %s bounce', (type) => {
    expect(decide(read(bounce(type, 'General', [{ emailAddress: 'a@example.com' }])))).toEqual({
      suppress: [],
      withdraw: [],
    });
  });

  it.each([
    ['abuse', 'abuse'],
    ['fraud', 'fraud'],
    ['virus', 'virus'],
    ['other', 'other'],
    ['auth-failure', 'other'],
    [undefined, null],
  ])('suppresses for a complaint with feedback type %s as subtype %s', (feedback, subtype) => {
    expect(decide(read(complaint(feedback))).suppress).toEqual([
      { email: 'a@example.com', source: 'complaint', subtype, reason: expect.any(String) },
    ]);
  });

  it('withdraws for not-spam and suppresses nothing', () => {
    expect(
      decide(read(complaint('not-spam', [{ emailAddress: 'A@example.com' }, { emailAddress: 'b@example.com' }]))),
    ).toEqual({
      suppress: [],
      withdraw: ['a@example.com', 'b@example.com'],
    });
  });

  it('reads the older notification format (notificationType)', () => {
    const { eventType: _, ...rest } = bounce('Permanent', 'General', [{ emailAddress: 'a@example.com' }]);
    expect(decide(read({ notificationType: 'Bounce', ...rest })).suppress).toHaveLength(1);
  });

  it('ignores events that are not feedback', () => {
    expect(decide(read({ eventType: 'Delivery', mail }))).toEqual({ suppress: [], withdraw: [] });
  });

  it.each([
    ['a bounce without bounce object', { eventType: 'Bounce', mail }],
    ['a bounce without recipients', { eventType: 'Bounce', mail, bounce: { bounceType: 'Permanent' } }],
    ['a recipient that is no address', bounce('Permanent', 'General', [{ emailAddress: 'nobody' }])],
    ['a complaint without recipients', { eventType: 'Complaint', mail, complaint: {} }],
  ])('refuses %s', (_, event) => {
    expect(() => decide(read(event))).toThrow(MalformedSesNotification);
  });
});
