/**
 * Simulated outcomes: what SES would publish for a send, decided by each recipient's address. ONE
 * table (SIMULATED_ADDRESSES; the README's "Testing your integration" shows it), read by
 * - the sender for test-mode emails (./test-mode-send.ts), on AWS and locally: test mode never
 *   calls SES, and these events reach the same workers as live mail's;
 * - the local SES stand-in (local/aws/ses-events.ts) for live sends on a laptop, as SES's
 *   mailbox simulator would answer them.
 *
 * | address                                        | outcome (events after `Send`)                                                   |
 * |------------------------------------------------|---------------------------------------------------------------------------------|
 * | `success@` / `delivered@simulator.amazonses.com` | Delivery                                                                      |
 * | `bounce@simulator.amazonses.com`               | Bounce, Permanent / General (suppresses the address)                            |
 * | `suppressionlist@simulator.amazonses.com`      | Bounce, Permanent / OnAccountSuppressionList (suppresses the address)           |
 * | `complaint@simulator.amazonses.com`            | Delivery, then Complaint `abuse` (suppresses the address)                       |
 * | `ooto@simulator.amazonses.com`                 | Delivery (SES then sends an auto-reply, which suppresses nothing)               |
 * | `open@simulator.amazonses.com`                 | Delivery, then Open (when the domain tracks opens)                              |
 * | `click@simulator.amazonses.com`                | Delivery, Open, then a Click per distinct link of the html (when tracked)      |
 * | `delivered@resend.dev`                         | Delivery (test mode only)                                                       |
 * | `bounced@resend.dev`                           | as `bounce@` (test mode only)                                                   |
 * | `complained@resend.dev`                        | as `complaint@` (test mode only)                                                |
 * | any other address                              | Delivery                                                                        |
 *
 * Each also with a `+label` (`bounce+user1@simulator.amazonses.com`, `bounced+ci-42@resend.dev`),
 * as both providers take them, so tests can use many distinct addresses. The resend.dev
 * addresses are simulated in test mode only: a live send to them is real mail to Resend's
 * servers on AWS, so the local SES does not pretend otherwise (`testMode: false`).
 *
 * Opens and clicks come only when the send's configuration set publishes them (an enabled event
 * destination matching OPEN / CLICK: the domain's `open_tracking` / `click_tracking`,
 * shared/domains/identity.ts `matchingEventTypes`), and only for html (the open pixel and the
 * wrapped links are in the html part), as on SES. Every send gets a `Send` event first.
 *
 * Pure: builds the events in SES's event publishing format, and publishes nothing.
 */
import { bareAddress } from './record';
import type { SimpleSendRequest } from './rendered-message';
import { nowDate } from '../platform/clock';

/** What a simulated address makes of a send to it. */
export type SimulatedOutcome =
  | 'delivered'
  | 'bounced'
  | 'on_suppression_list'
  | 'complained'
  | 'auto_reply'
  | 'opened'
  | 'clicked';

export const SIMULATED_ADDRESSES: readonly { address: string; outcome: SimulatedOutcome; testModeOnly?: true }[] = [
  { address: 'success@simulator.amazonses.com', outcome: 'delivered' },
  { address: 'delivered@simulator.amazonses.com', outcome: 'delivered' },
  { address: 'bounce@simulator.amazonses.com', outcome: 'bounced' },
  { address: 'suppressionlist@simulator.amazonses.com', outcome: 'on_suppression_list' },
  { address: 'complaint@simulator.amazonses.com', outcome: 'complained' },
  { address: 'ooto@simulator.amazonses.com', outcome: 'auto_reply' },
  { address: 'open@simulator.amazonses.com', outcome: 'opened' },
  { address: 'click@simulator.amazonses.com', outcome: 'clicked' },
  { address: 'delivered@resend.dev', outcome: 'delivered', testModeOnly: true },
  { address: 'bounced@resend.dev', outcome: 'bounced', testModeOnly: true },
  { address: 'complained@resend.dev', outcome: 'complained', testModeOnly: true },
];

const OUTCOMES = new Map(SIMULATED_ADDRESSES.map((entry) => [entry.address, entry]));

/** The simulated address a recipient stands for: its bare address without a `+label` at the simulators' domains. */
const simulatedAddress = (address: string): string =>
  bareAddress(address).replace(/\+[^@]*@(simulator\.amazonses\.com|resend\.dev)$/, '@$1');

/** What a send to `address` comes to: its entry of the table, else `delivered`. */
export function outcomeOf(address: string, testMode: boolean): SimulatedOutcome {
  const entry = OUTCOMES.get(simulatedAddress(address));
  return entry && (testMode || !entry.testModeOnly) ? entry.outcome : 'delivered';
}

/** What a reader's mail client shows SES when it loads the open pixel or follows a wrapped link. */
const READER = { ipAddress: '192.0.2.1', userAgent: 'Mozilla/5.0 (SES mailbox simulator)' }; // 192.0.2.0/24: TEST-NET-1, documentation only

/** The engagement events a send's configuration set publishes (its enabled event destinations' matching types). */
export interface Tracking {
  open: boolean;
  click: boolean;
}

/** The SendEmail request the events are built from: its Simple content (as rendered), tags and configuration set. */
export type SimulatedRequest = SimpleSendRequest & {
  EmailTags?: { Name?: string; Value?: string }[];
  ConfigurationSetName?: string;
};

export type SesEvent = Record<string, unknown> & { eventType: string };

export interface SimulationOptions {
  now?: Date;
  tracking?: Tracking;
  /** test mode: the resend.dev addresses are simulated too (module comment) */
  testMode?: boolean;
}

const decodeEntities = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos|#(\d+)|#x([0-9a-f]+));/gi, (whole, name: string, dec?: string, hex?: string) => {
    if (dec) return String.fromCodePoint(Number(dec));
    if (hex) return String.fromCodePoint(parseInt(hex, 16));
    return (
      ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" } as Record<string, string>)[name.toLowerCase()] ?? whole
    );
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
export function simulatedEvents(
  request: SimulatedRequest,
  messageId: string,
  options: SimulationOptions = {},
): SesEvent[] {
  const { now = nowDate(), tracking = { open: false, click: false }, testMode = false } = options;
  const destination = request.Destination ?? {};
  const recipients: string[] = [
    ...(destination.ToAddresses ?? []),
    ...(destination.CcAddresses ?? []),
    ...(destination.BccAddresses ?? []),
  ];
  const tags: Record<string, string[]> = {};
  for (const tag of request.EmailTags ?? []) tags[String(tag.Name)] = [String(tag.Value)];
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
    commonHeaders: {
      from: [source],
      to: destination.ToAddresses ?? [],
      subject: request.Content?.Simple?.Subject?.Data ?? '',
    },
    tags,
  };
  const at = (ms: number) => new Date(now.getTime() + ms).toISOString();
  const later = at(500);
  const outcomes = recipients.map((recipient) => ({ recipient, outcome: outcomeOf(recipient, testMode) }));
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
        feedbackId: `${messageId}-bounce-${address}`,
        reportingMTA: 'dns; amazonses.com',
      },
    });
  for (const { recipient, outcome } of outcomes) {
    if (outcome === 'bounced') bounce('General', recipient, 'smtp; 550 5.1.1 user unknown');
    if (outcome === 'on_suppression_list') {
      bounce(
        'OnAccountSuppressionList',
        recipient,
        'Amazon SES did not send the message to this address because it is on the suppression list for your account.',
      );
    }
  }
  const delivered = outcomes.filter(({ outcome }) => outcome !== 'bounced' && outcome !== 'on_suppression_list');
  if (delivered.length) {
    events.push({
      eventType: 'Delivery',
      mail,
      delivery: {
        timestamp: later,
        processingTimeMillis: 500,
        recipients: delivered.map((d) => d.recipient),
        smtpResponse: '250 2.6.0 Message received',
        reportingMTA: 'a8-1.smtp-out.amazonses.com',
      },
    });
  }
  const complainers = delivered.filter(({ outcome }) => outcome === 'complained').map((d) => d.recipient);
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
  const html = request.Content?.Simple?.Body?.Html?.Data;
  for (const { outcome } of html === undefined ? [] : delivered) {
    if (outcome !== 'opened' && outcome !== 'clicked') continue;
    if (tracking.open) events.push({ eventType: 'Open', mail, open: { ...READER, timestamp: at(1000) } });
    if (outcome !== 'clicked' || !tracking.click) continue;
    for (const [i, { link, linkTags }] of trackedLinks(html!).entries()) {
      events.push({
        eventType: 'Click',
        mail,
        click: {
          ipAddress: READER.ipAddress,
          link,
          linkTags,
          timestamp: at(1500 + i * 100),
          userAgent: READER.userAgent,
        },
      });
    }
  }
  return events;
}

/**
 * How long after the send each event arrives when the sender publishes them (SQS DelaySeconds): in
 * SES's order, a moment apart, as SES's own feedback comes. Consumers do not rely on the order
 * (SNS and SQS promise none; shared/emails/status.ts only moves forward).
 */
export const SIMULATED_DELAY_SECONDS: Record<string, number> = {
  Send: 0,
  Delivery: 1,
  Bounce: 1,
  Complaint: 2,
  Open: 2,
  Click: 3,
};
