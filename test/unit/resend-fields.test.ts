/**
 * Resend's flat event fields for the cases the local runtime cannot produce end to end (SES does
 * not simulate clicks locally) or that the API suites read only in part: each built from the
 * resource exactly as the event's `data.object` holds it, at the `resend` SDK's paths, when the
 * event leaves the service (the stored event holds the object only).
 */
import type { WebhookEventPayload } from 'resend';
import { buildEvent, withResendFields } from '../../shared/events/events';

const caller = { projectId: '01900000-0000-7000-8000-00000000aaaa', livemode: true };
const email = {
  object: 'email',
  id: '01900000-0000-7000-8000-00000000e001',
  message_id: '<abc@ap-southeast-2.amazonses.com>',
  ses_message_id: 'abc',
  from: 'Acme <hi@acme.example>',
  to: ['ada@example.com'],
  subject: 'Hi',
  tags: [
    { name: 'campaign', value: 'spring' },
    { name: 'tier', value: 'gold' },
  ],
  created_at: '2026-11-25T10:00:00.000Z',
  broadcast_id: '01900000-0000-7000-8000-00000000b001',
};
/** The event as a Resend handler receives it (the SDK's type; our envelope's extra fields ignored). */
const asResend = (type: Parameters<typeof buildEvent>[1], object: object) =>
  withResendFields(buildEvent(caller, type, object)) as unknown as WebhookEventPayload;

it('email.clicked: the email fields and click {ipAddress, link, timestamp, userAgent}', () => {
  const event = asResend('email.clicked', {
    ...email,
    click: {
      link: 'https://acme.example/x',
      timestamp: '2026-11-25T10:01:00.000Z',
      user_agent: 'Mail/1',
      ip_address: '203.0.113.9',
    },
  });
  if (event.type !== 'email.clicked') throw new Error(event.type);
  expect(event.data).toMatchObject({
    email_id: email.id,
    from: email.from,
    to: email.to,
    subject: 'Hi',
    created_at: email.created_at,
    message_id: email.message_id,
    broadcast_id: email.broadcast_id,
    tags: { campaign: 'spring', tier: 'gold' },
    click: {
      ipAddress: '203.0.113.9',
      link: 'https://acme.example/x',
      timestamp: '2026-11-25T10:01:00.000Z',
      userAgent: 'Mail/1',
    },
  });
});

it('email.bounced: bounce {type, subType, message} with the recipient diagnostic as the message', () => {
  const event = asResend('email.bounced', {
    ...email,
    bounce: {
      type: 'Permanent',
      subtype: 'NoEmail',
      recipients: [{ emailAddress: 'ada@example.com', diagnosticCode: 'smtp; 550 5.1.1 no such user' }],
    },
  });
  if (event.type !== 'email.bounced') throw new Error(event.type);
  expect(event.data.bounce).toEqual({ type: 'Permanent', subType: 'NoEmail', message: 'smtp; 550 5.1.1 no such user' });
});

it('email.failed: failed {reason} from the failure reason', () => {
  const event = asResend('email.failed', {
    ...email,
    failure_reason: 'not sent: https://x.example/a.pdf answered 404',
  });
  if (event.type !== 'email.failed') throw new Error(event.type);
  expect(event.data.failed).toEqual({ reason: 'not sent: https://x.example/a.pdf answered 404' });
});

it('email.received: the bare from address and the attachments without their bytes', () => {
  const received = {
    object: 'email',
    id: '01900000-0000-7000-8000-00000000r001',
    from: 'Bea <bea@outside.example>',
    to: ['inbox@acme.example'],
    cc: [],
    bcc: [],
    received_for: ['inbox@acme.example'],
    subject: 'Question',
    message_id: '<q1@outside.example>',
    created_at: '2026-11-25T10:02:00.000Z',
    attachments: [
      {
        id: '01900000-0000-7000-8000-00000000a001',
        filename: 'a.pdf',
        size: 10,
        content_type: 'application/pdf',
        content_disposition: 'attachment',
        content_id: null,
      },
    ],
  };
  const event = asResend('email.received', received);
  if (event.type !== 'email.received') throw new Error(event.type);
  expect(event.data).toEqual({
    object: received,
    email_id: received.id,
    created_at: received.created_at,
    from: 'bea@outside.example',
    to: received.to,
    cc: [],
    bcc: [],
    received_for: received.received_for,
    message_id: received.message_id,
    subject: 'Question',
    attachments: [
      {
        id: received.attachments[0].id,
        filename: 'a.pdf',
        content_type: 'application/pdf',
        content_disposition: 'attachment',
        content_id: null,
      },
    ],
  });
});

it('adds nothing beside the object for types Resend does not have', () => {
  expect(withResendFields(buildEvent(caller, 'api_key.created', { object: 'api_key', id: 'k' })).data).toEqual({
    object: { object: 'api_key', id: 'k' },
  });
});
