/**
 * Test mode's simulated outcomes (shared/emails/simulated-outcomes.ts): the one table of addresses,
 * the SES events each comes to, the README's copy of the table, and the message test mode stores
 * instead of sending it (shared/emails/rendered-message.ts), read back by a MIME parser.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import PostalMime from 'postal-mime';
import { quotedPrintable, renderMessage } from '../../shared/emails/rendered-message';
import {
  outcomeOf,
  SIMULATED_ADDRESSES,
  SIMULATED_DELAY_SECONDS,
  simulatedEvents,
  type SimulatedRequest,
} from '../../shared/emails/simulated-outcomes';
import { subscribedQueues } from '../../shared/platform/aws/ses-events-topic';
import { parseSnsEnvelope, snsEnvelope } from '../../shared/platform/aws/sns-envelope';

const request = (to: string[], html = '<p>Hi <a href="https://example.com/a">a</a></p>'): SimulatedRequest => ({
  FromEmailAddress: 'News <news@mail.example.com>',
  Destination: { ToAddresses: to },
  ConfigurationSetName: 'es-set',
  EmailTags: [{ Name: 'email_id', Value: 'e-1' }],
  Content: { Simple: { Subject: { Data: 'Hi' }, Body: { Html: { Data: html } } } },
});
const types = (to: string, options: Parameters<typeof simulatedEvents>[2] = { testMode: true }) =>
  simulatedEvents(request([to]), 'test-1', options).map((e) => e.eventType);

describe('the table of simulated addresses', () => {
  it.each([
    ['success@simulator.amazonses.com', ['Send', 'Delivery']],
    ['delivered@simulator.amazonses.com', ['Send', 'Delivery']],
    ['bounce@simulator.amazonses.com', ['Send', 'Bounce']],
    ['suppressionlist@simulator.amazonses.com', ['Send', 'Bounce']],
    ['complaint@simulator.amazonses.com', ['Send', 'Delivery', 'Complaint']],
    ['ooto@simulator.amazonses.com', ['Send', 'Delivery']],
    ['delivered@resend.dev', ['Send', 'Delivery']],
    ['bounced@resend.dev', ['Send', 'Bounce']],
    ['complained@resend.dev', ['Send', 'Delivery', 'Complaint']],
    ['anyone@example.com', ['Send', 'Delivery']],
  ])('%s in test mode: %j', (address, expected) => {
    expect(types(address)).toEqual(expected);
    const [name, domain] = address.split('@');
    expect(types(`Someone <${name}+ci-42@${domain.toUpperCase()}>`)).toEqual(expected); // a +label, a display name, any case
  });

  it("simulates resend.dev in test mode only: live mail to it is real mail (the local SES's case)", () => {
    expect(outcomeOf('bounced@resend.dev', false)).toBe('delivered');
    expect(outcomeOf('complained+x@resend.dev', false)).toBe('delivered');
    expect(outcomeOf('bounce+x@simulator.amazonses.com', false)).toBe('bounced');
    expect(outcomeOf('bounce@other.example', true)).toBe('delivered');
  });

  it('bounces with the SES subtypes the suppression writer records', () => {
    const [, general] = simulatedEvents(request(['bounced+a@resend.dev']), 'test-1', { testMode: true });
    const [, onList] = simulatedEvents(request(['suppressionlist@simulator.amazonses.com']), 'test-1', {
      testMode: true,
    });
    expect(general.bounce).toMatchObject({
      bounceType: 'Permanent',
      bounceSubType: 'General',
      bouncedRecipients: [{ emailAddress: 'bounced+a@resend.dev' }],
    });
    expect(onList.bounce).toMatchObject({ bounceType: 'Permanent', bounceSubType: 'OnAccountSuppressionList' });
  });

  it('opens and clicks only what the domain tracks', () => {
    expect(types('open@simulator.amazonses.com', { testMode: true, tracking: { open: true, click: true } })).toEqual([
      'Send',
      'Delivery',
      'Open',
    ]);
    expect(types('click+1@simulator.amazonses.com', { testMode: true, tracking: { open: true, click: true } })).toEqual(
      ['Send', 'Delivery', 'Open', 'Click'],
    );
    expect(types('click@simulator.amazonses.com', { testMode: true })).toEqual(['Send', 'Delivery']);
  });

  it('builds the same events for the same send, so a republished event is applied once', () => {
    const now = new Date('2026-11-25T10:00:00.000Z');
    const send = () =>
      simulatedEvents(request(['bounce@simulator.amazonses.com', 'complaint@simulator.amazonses.com']), 'test-1', {
        now,
        testMode: true,
      });
    expect(send()).toEqual(send());
  });

  it('reaches the queues SNS would deliver each event to, in SES order a moment apart', () => {
    expect(subscribedQueues({ eventType: 'Bounce' })).toEqual(['ses-suppression', 'ses-events']);
    expect(subscribedQueues({ eventType: 'Complaint' })).toEqual(['ses-suppression', 'ses-events']);
    expect(subscribedQueues({ eventType: 'Delivery' })).toEqual(['ses-events']);
    const delays = ['Send', 'Delivery', 'Complaint', 'Open', 'Click'].map((t) => SIMULATED_DELAY_SECONDS[t]);
    expect(delays).toEqual([...delays].sort((a, b) => a - b));
    expect(SIMULATED_DELAY_SECONDS.Send).toBe(0);
    const [send] = simulatedEvents(request(['a@example.com']), 'test-1');
    expect(parseSnsEnvelope(JSON.stringify(snsEnvelope(send)))).toEqual(send);
  });

  it("is the API docs' table: every address is documented", () => {
    const docs = readFileSync(join(__dirname, '..', '..', 'docs', 'api.md'), 'utf8');
    const start = docs.indexOf('## Testing your integration');
    expect(start).toBeGreaterThan(-1);
    const next = docs.indexOf('\n## ', start + 1); // the section runs to the next heading of its level
    const section = docs.slice(start, next === -1 ? undefined : next);
    for (const { address } of SIMULATED_ADDRESSES) expect(section).toContain(`\`${address}\``);
  });
});

describe('the rendered message of a test-mode send', () => {
  const attachment = Buffer.from('%PDF-1.4 not really');
  const message = renderMessage(
    {
      FromEmailAddress: '"Ünïcode, Sender" <news@mail.example.com>',
      Destination: {
        ToAddresses: ['Reader <reader@example.com>', 'second@example.com'],
        CcAddresses: ['cc@example.com'],
        BccAddresses: ['hidden@example.com'],
      },
      ReplyToAddresses: ['replies@mail.example.com'],
      Content: {
        Simple: {
          Subject: { Data: 'Grüße: your order № 42 '.repeat(5).trim() },
          Body: { Html: { Data: `<p>${'long line '.repeat(40)}</p><p>Grüße = €</p>` }, Text: { Data: 'Hello\nGrüße' } },
          Headers: [{ Name: 'X-Entity-Ref-ID', Value: 'abc-123' }],
          Attachments: [
            {
              FileName: 'invoice €.pdf',
              RawContent: attachment,
              ContentType: 'application/pdf',
              ContentDisposition: 'ATTACHMENT',
            },
          ],
        },
      },
    },
    { messageId: '<test-1@test-mode.invalid>', date: new Date('2026-11-25T10:00:00.000Z') },
  );

  it('reads back as what the request asked for, without its Bcc', async () => {
    const parsed = await PostalMime.parse(message);
    expect(parsed.from).toMatchObject({ name: 'Ünïcode, Sender', address: 'news@mail.example.com' });
    expect(parsed.to).toEqual([
      { name: 'Reader', address: 'reader@example.com' },
      { name: '', address: 'second@example.com' },
    ]);
    expect(parsed.cc).toEqual([{ name: '', address: 'cc@example.com' }]);
    expect(parsed.replyTo).toEqual([{ name: '', address: 'replies@mail.example.com' }]);
    expect(parsed.subject).toBe('Grüße: your order № 42 '.repeat(5).trim());
    expect(parsed.messageId).toBe('<test-1@test-mode.invalid>');
    expect(parsed.date).toBe('2026-11-25T10:00:00.000Z');
    // (postal-mime ends each part it reads with a line break)
    expect(parsed.text).toBe('Hello\nGrüße\n');
    expect(parsed.html).toBe(`<p>${'long line '.repeat(40)}</p><p>Grüße = €</p>\n`);
    expect(parsed.headers.find((h) => h.key === 'x-entity-ref-id')?.value).toBe('abc-123');
    expect(parsed.attachments).toHaveLength(1);
    expect(parsed.attachments[0]).toMatchObject({
      filename: 'invoice €.pdf',
      mimeType: 'application/pdf',
      disposition: 'attachment',
    });
    expect(Buffer.from(parsed.attachments[0].content as ArrayBuffer)).toEqual(attachment);
    expect(message.toString('latin1')).not.toContain('hidden@example.com');
  });

  it('keeps every line within 78 characters, and ASCII only', () => {
    const text = message.toString('latin1');
    expect(/^[\x20-\x7e\r\n\t]*$/.test(text)).toBe(true);
    expect(Math.max(...text.split('\r\n').map((line) => line.length))).toBeLessThanOrEqual(78);
  });

  it('writes quoted-printable that keeps ASCII readable', () => {
    expect(quotedPrintable('a = b\nend ')).toBe('a =3D b\r\nend=20');
    expect(quotedPrintable('x'.repeat(80)).split('\r\n')[0]).toBe(`${'x'.repeat(75)}=`);
  });
});
