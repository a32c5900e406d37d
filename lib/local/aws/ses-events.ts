/**
 * What SES publishes for a send when its configuration set has an SNS event destination,
 * simulated for the local runtime: the SES event JSON (event publishing format), wrapped in an
 * SNS notification envelope, put on every queue subscribed to the events topic whose body
 * filter matches (functions/workers.ts `sesEventSubscriptions`), as SNS -> SQS would.
 *
 * Recipients behave like the SES mailbox simulator (all @simulator.amazonses.com):
 * `success@` delivered; `bounce@` a Permanent/General bounce; `ooto@` delivered (SES then sends
 * an auto-reply, which suppresses nothing); `complaint@` delivered, then an `abuse` complaint;
 * `suppressionlist@` a Permanent/OnAccountSuppressionList bounce; each also with a `+label`
 * (`bounce+anything@`), as SES's simulator takes them. Any other address: delivered.
 * Every send gets a `Send` event first.
 *
 * Two addresses of our own (SES's simulator has none for engagement), so open and click tracking
 * can be tested: `open@` is delivered and then opened (an `Open` event); `click@` is delivered,
 * opened, and then clicks each distinct link of the html once (a `Click` event per link, `link`
 * its href). As on SES, these come only when the send's configuration set publishes them (an
 * enabled event destination matching OPEN / CLICK: the domain's `open_tracking` /
 * `click_tracking`, shared/domains/identity.ts `matchingEventTypes`), and only for html (the open
 * pixel and the wrapped links are in the html part). The other events come for every send through
 * a configuration set, as if it had the destination.
 */
import { randomUUID } from 'node:crypto';
import { SendMessageCommand, type SQSClient } from '@aws-sdk/client-sqs';
import { queueUrlVariable, sesEventSubscriptions } from '../../../functions/workers';
import { matchesFilter, type FilterPattern } from '../lambda/event-filter';

export const LOCAL_SES_EVENTS_TOPIC_ARN = 'arn:aws:sns:ap-southeast-2:000000000000:ses-events';

type SesEvent = Record<string, unknown> & { eventType: string };

function bareAddress(address: string): string {
  const match = /<([^>]+)>\s*$/.exec(address);
  return (match ? match[1] : address).trim().toLowerCase();
}

/** The simulator address a recipient stands for: SES's simulator takes a `+label` (`bounce+user1@`), so tests can bounce many distinct addresses. */
const simulatorAddress = (address: string): string => bareAddress(address).replace(/\+[^@]*@simulator\.amazonses\.com$/, '@simulator.amazonses.com');

/** What a reader's mail client shows SES when it loads the open pixel or follows a wrapped link. */
const READER = { ipAddress: '192.0.2.1', userAgent: 'Mozilla/5.0 (local SES mailbox simulator)' }; // 192.0.2.0/24: TEST-NET-1, documentation only

/** The engagement events a send's configuration set publishes (its enabled event destinations' matching types). */
export interface Tracking {
  open: boolean;
  click: boolean;
}

const decodeEntities = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-f]+));/gi, (whole, name: string, dec?: string, hex?: string) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[name.toLowerCase()] ?? whole;
  });

const attribute = (tag: string, name: string): string | undefined => {
  const match = new RegExp(`\\s${name}\\s*=\\s*(?:"([^"]*)"|'([^']*)'|([^\\s>]+))`, 'i').exec(tag);
  return match ? decodeEntities(match[1] ?? match[2] ?? match[3]) : undefined;
};

/**
 * The links SES wraps for click tracking, each once, in the html's order: the `href` of every
 * `<a>` to http(s), except those marked `ses:no-track`; `linkTags` from its `ses:tags`
 * (`"key:value;key2:value2"`), as SES reports them.
 */
export function trackedLinks(html: string): { link: string; linkTags: Record<string, string[]> }[] {
  const links = new Map<string, Record<string, string[]>>();
  for (const [tag] of html.matchAll(/<a\b[^>]*>/gi)) {
    const href = attribute(tag, 'href')?.trim();
    if (!href || !/^https?:\/\//i.test(href) || /\sses:no-track\b/i.test(tag) || links.has(href)) continue;
    const linkTags: Record<string, string[]> = {};
    for (const pair of (attribute(tag, 'ses:tags') ?? '').split(';')) {
      const colon = pair.indexOf(':');
      const [key, value] = [pair.slice(0, colon).trim(), pair.slice(colon + 1).trim()];
      if (colon > 0 && key) linkTags[key] = [...(linkTags[key] ?? []), value];
    }
    links.set(href, linkTags);
  }
  return [...links].map(([link, linkTags]) => ({ link, linkTags }));
}

/** The SES events of one accepted send, in the order SES would publish them. */
export function simulatedEvents(request: Record<string, any>, messageId: string, now = new Date(), tracking: Tracking = { open: false, click: false }): SesEvent[] {
  const destination = request.Destination ?? {};
  const recipients: string[] = [...(destination.ToAddresses ?? []), ...(destination.CcAddresses ?? []), ...(destination.BccAddresses ?? [])];
  const tags: Record<string, string[]> = {};
  for (const tag of request.EmailTags ?? []) tags[tag.Name] = [tag.Value];
  if (request.ConfigurationSetName) tags['ses:configuration-set'] = [request.ConfigurationSetName];
  const source = String(request.FromEmailAddress ?? '');
  tags['ses:from-domain'] = [bareAddress(source).split('@')[1] ?? ''];
  const timestamp = now.toISOString();
  const mail = {
    timestamp,
    source,
    sendingAccountId: '000000000000',
    messageId,
    destination: recipients,
    headersTruncated: false,
    commonHeaders: { from: [source], to: destination.ToAddresses ?? [], subject: request.Content?.Simple?.Subject?.Data ?? '' },
    tags,
  };
  const later = new Date(now.getTime() + 500).toISOString();
  const delivered: string[] = [];
  const events: SesEvent[] = [{ eventType: 'Send', mail, send: {} }];
  const bounce = (subType: string, address: string, diagnosticCode: string) =>
    events.push({
      eventType: 'Bounce',
      mail,
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: subType,
        bouncedRecipients: [{ emailAddress: address, action: 'failed', status: '5.1.1', diagnosticCode }],
        timestamp: later,
        feedbackId: `${messageId}-bounce-${randomUUID()}`,
        reportingMTA: 'dns; amazonses.com',
      },
    });
  for (const recipient of recipients) {
    const address = simulatorAddress(recipient);
    if (address === 'bounce@simulator.amazonses.com') bounce('General', recipient, 'smtp; 550 5.1.1 user unknown');
    else if (address === 'suppressionlist@simulator.amazonses.com') {
      bounce('OnAccountSuppressionList', recipient, 'Amazon SES did not send the message to this address because it is on the suppression list for your account.');
    } else delivered.push(recipient);
  }
  if (delivered.length) {
    events.push({
      eventType: 'Delivery',
      mail,
      delivery: { timestamp: later, processingTimeMillis: 500, recipients: delivered, smtpResponse: '250 2.6.0 Message received', reportingMTA: 'a8-1.smtp-out.amazonses.com' },
    });
  }
  const complainers = delivered.filter((r) => simulatorAddress(r) === 'complaint@simulator.amazonses.com');
  if (complainers.length) {
    events.push({
      eventType: 'Complaint',
      mail,
      complaint: {
        complainedRecipients: complainers.map((emailAddress) => ({ emailAddress })),
        timestamp: later,
        feedbackId: `${messageId}-complaint`,
        userAgent: 'Amazon SES Mailbox Simulator',
        complaintFeedbackType: 'abuse',
        arrivalDate: later,
      },
    });
  }
  // a reader opens it a second after delivery, and clicks a moment later (SES reports the html's links only)
  const html: string | undefined = request.Content?.Simple?.Body?.Html?.Data;
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  for (const recipient of html === undefined ? [] : delivered) {
    const address = simulatorAddress(recipient);
    if (address !== 'open@simulator.amazonses.com' && address !== 'click@simulator.amazonses.com') continue;
    if (tracking.open) events.push({ eventType: 'Open', mail, open: { ...READER, timestamp: at(1000) } });
    if (address !== 'click@simulator.amazonses.com' || !tracking.click) continue;
    for (const [i, { link, linkTags }] of trackedLinks(html!).entries()) {
      events.push({ eventType: 'Click', mail, click: { ipAddress: READER.ipAddress, link, linkTags, timestamp: at(1500 + i * 100), userAgent: READER.userAgent } });
    }
  }
  return events;
}

/** SNS's envelope around a message, as an SQS subscription without raw delivery receives it. */
export function snsEnvelope(message: unknown, topicArn = LOCAL_SES_EVENTS_TOPIC_ARN) {
  return {
    Type: 'Notification',
    MessageId: randomUUID(),
    TopicArn: topicArn,
    Message: JSON.stringify(message),
    Timestamp: new Date().toISOString(),
    SignatureVersion: '1',
    Signature: 'local',
    SigningCertURL: 'https://sns.ap-southeast-2.amazonaws.com/local.pem',
    UnsubscribeURL: 'https://sns.ap-southeast-2.amazonaws.com/?Action=Unsubscribe',
  };
}

/** Publishes to the subscribed queues (their URLs from QUEUE_URL_<NAME>, set by the runtime), honouring each body filter. */
export async function publishSesEvents(sqs: SQSClient, events: SesEvent[]): Promise<void> {
  for (const event of events) {
    for (const subscription of sesEventSubscriptions) {
      if (subscription.bodyFilter && !matchesFilter(event, subscription.bodyFilter as unknown as FilterPattern)) continue;
      const url = process.env[queueUrlVariable(subscription.queue)];
      if (!url) continue; // queues not created yet: nothing subscribed
      await sqs.send(new SendMessageCommand({ QueueUrl: url, MessageBody: JSON.stringify(snsEnvelope(event)) }));
    }
  }
}
