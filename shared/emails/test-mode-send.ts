/**
 * What the sender does for a test-mode email (`livemode: false`, an `es_test_` key's) instead of
 * calling SES: no SES client is used (shared/emails/sender.ts takes this branch before any SES
 * call), on AWS as locally. In the sender's order:
 *
 * 1. After the claim (`sending`), the message the live path would give SES (the same request,
 *    `sesInput`) is rendered as MIME (./rendered-message.ts) and stored once in the content bucket
 *    beside the email's content (`renderedMessageKey`); GET /emails/{id} offers it as `raw`. A
 *    store that fails is what SES refusing with an answer is to live mail: the email goes back to
 *    `queued`, at most MAX_SEND_ATTEMPTS times, then `failed`.
 * 2. The sender commits `sent` with a `test-<id>` message id and its SES message lookup in one
 *    transaction, as for live mail. The claim's condition lets exactly one invocation commit it,
 *    so a redelivered send message finds the email taken and publishes nothing.
 * 3. Only that invocation then publishes the simulated SES events (./simulated-outcomes.ts: one
 *    table of outcomes by address, the same as the local SES's) the way SNS -> SQS delivers SES's
 *    own: each event in an SNS envelope on every subscribed queue whose body filter it passes
 *    (`ses-events` for all, `ses-suppression` for Bounce and Complaint:
 *    shared/platform/aws/ses-events-topic.ts), with DelaySeconds that bring them in SES's order a
 *    moment apart. The email-status worker and the suppression writer then do exactly what they
 *    do for live mail: statuses, suppressions in the test twin, events with `livemode: false`,
 *    webhook deliveries.
 *
 * Crash rule: the publish comes after the commit, so an email is never reported `delivered` or
 * `bounced` without having been `sent`. A publish that fails is tried PUBLISH_ATTEMPTS times with
 * the same envelopes (consumers apply a repeated event once: the status worker's marker, the
 * suppression list's one entry per address), then logged as an error. The email then stays
 * `sent`: that, and a sender that dies between the commit and the publish, is test mode's
 * at-most-once window, the same window as SES's own feedback, which is never guaranteed either.
 */
import { bucketName, putObject } from '../platform/aws/s3';
import { queue, type Queue } from '../platform/aws/queues';
import { subscribedQueues } from '../platform/aws/ses-events-topic';
import { snsEnvelope } from '../platform/aws/sns-envelope';
import * as keys from '../platform/db/keys';
import { batchGet, getItem } from '../platform/db/table';
import { newId } from '../platform/ids';
import { logger } from '../platform/log';
import { nowIso } from '../platform/clock';
import { renderedMessageKey } from './content';
import { addressDomain, bareAddress, testMessageIdHeader } from './record';
import { renderMessage, type SimpleSendRequest } from './rendered-message';
import { SIMULATED_DELAY_SECONDS, simulatedEvents, type SimulatedRequest, type Tracking } from './simulated-outcomes';

/** Tries of the publish before the error is logged and the email left `sent` (the module comment). */
export const PUBLISH_ATTEMPTS = 3;
/** The wait before the next try grows by this much each time. */
const PUBLISH_BACKOFF_MS = 200;

type Envelope = ReturnType<typeof snsEnvelope>;

/** An event's delay (SIMULATED_DELAY_SECONDS), read back from its envelope. */
const delayOf = (envelope: Envelope): number =>
  SIMULATED_DELAY_SECONDS[(JSON.parse(envelope.Message) as { eventType: string }).eventType] ?? 0;

const feedbackQueues: Record<string, Queue<Envelope, void>> = {
  'ses-events': queue<Envelope>('ses-events', 'throw', { delaySeconds: delayOf }),
  'ses-suppression': queue<Envelope>('ses-suppression', 'throw', { delaySeconds: delayOf }),
};

/** A test-mode email's message id: never an SES one. */
export const testMessageId = (): string => `test-${newId()}`;

/** Step 1: the message a recipient would get, stored for GET /emails/{id} `raw`. */
export async function storeRenderedMessage(
  projectId: string,
  emailId: string,
  request: SimpleSendRequest,
  messageId: string,
  sentAt: Date,
): Promise<Uint8Array> {
  const message = renderMessage(request, { messageId: testMessageIdHeader(messageId), date: sentAt });
  await putObject(renderedMessageKey(projectId, emailId), message, 'message/rfc822', 'content');
  return message;
}

/** The engagement the domain's configuration set would publish (its `open_tracking` / `click_tracking`). */
async function domainTracking(projectId: string, domainId: string): Promise<Tracking> {
  const domain = await getItem(keys.domain(projectId, domainId));
  return { open: domain?.open_tracking === true, click: domain?.click_tracking === true };
}

/**
 * Step 3: the simulated SES events of the send, on the subscribed queues. Never throws: a publish
 * that keeps failing is logged (the module comment's crash rule).
 */
export async function publishSimulatedFeedback(
  projectId: string,
  domainId: string,
  request: SimulatedRequest,
  messageId: string,
): Promise<void> {
  let envelopes: { queue: string; envelope: Envelope }[] | undefined;
  for (let attempt = 1; attempt <= PUBLISH_ATTEMPTS; attempt++) {
    try {
      // built once: a retry publishes the very same events, which the consumers apply once
      envelopes ??= simulatedEvents(request, messageId, {
        tracking: await domainTracking(projectId, domainId),
        testMode: true,
      }).flatMap((event) => {
        const envelope = snsEnvelope(event);
        return subscribedQueues(event).map((queue) => ({ queue, envelope }));
      });
      const built = envelopes;
      await Promise.all(
        Object.entries(feedbackQueues).map(([name, q]) =>
          q.enqueue(built.filter((e) => e.queue === name).map((e) => e.envelope)),
        ),
      );
      return;
    } catch (error) {
      if (attempt === PUBLISH_ATTEMPTS) {
        logger.error('test mode: the simulated SES events were not published; the email stays sent', {
          project_id: projectId,
          ses_message_id: messageId,
          error,
        });
        return;
      }
      await new Promise((resolve) => setTimeout(resolve, PUBLISH_BACKOFF_MS * attempt));
    }
  }
}

const inboundQueue = /* @__PURE__ */ queue<Envelope>('inbound', 'throw');
/** Where SES's receipt rule puts a received message (functions/workers.ts INBOUND_RAW_PREFIX). */
const INBOUND_RAW_PREFIX = 'raw/';

const domainOf = (address: string) => addressDomain(address) ?? '';

/**
 * Step 4, receiving in test mode: the recipients at a domain of the same test twin (its test
 * domains' claims, one BatchGet; none -> nothing to do) get the message through the inbound path
 * SES's receipt rule feeds: the rendered message goes in the inbound bucket and a `Received`
 * notification naming the twin (`test_project_id`) on the inbound queue. The inbound worker then
 * files it for the twin's receiving-enabled, verified domains only (shared/receiving/inbound.ts), as
 * it files live mail. Never throws: a failure is logged, the send stays what it is.
 */
export async function deliverToSandbox(
  projectId: string,
  request: SimulatedRequest,
  messageId: string,
  message: Uint8Array,
): Promise<void> {
  try {
    const destination = request.Destination ?? {};
    const recipients = [
      ...(destination.ToAddresses ?? []),
      ...(destination.CcAddresses ?? []),
      ...(destination.BccAddresses ?? []),
    ].map(bareAddress);
    const domains = [...new Set(recipients.map(domainOf).filter(Boolean))];
    const claims = await batchGet(domains.map((domain) => keys.testDomainName(projectId, domain)));
    const ours = new Set(
      claims.filter((claim) => claim.state === 'active').map((claim) => String(claim.name).toLowerCase()),
    );
    const local = recipients.filter((address) => ours.has(domainOf(address)));
    if (!local.length) return;
    const objectKey = `${INBOUND_RAW_PREFIX}${messageId}`;
    await putObject(objectKey, message, 'message/rfc822', 'inbound');
    const timestamp = nowIso();
    const from = String(request.FromEmailAddress ?? '');
    const notification = {
      notificationType: 'Received',
      mail: {
        timestamp,
        source: from,
        messageId,
        destination: local,
        headersTruncated: false,
        commonHeaders: {
          from: [from],
          to: destination.ToAddresses ?? [],
          subject: request.Content?.Simple?.Subject?.Data ?? '',
        },
      },
      receipt: {
        timestamp,
        recipients: local,
        spamVerdict: { status: 'PASS' },
        virusVerdict: { status: 'PASS' },
        action: { type: 'S3', bucketName: bucketName('inbound'), objectKey },
      },
      test_project_id: projectId,
    };
    await inboundQueue.enqueue([snsEnvelope(notification)]);
  } catch (error) {
    logger.error('test mode: the message was not filed for its sandbox recipients', {
      project_id: projectId,
      ses_message_id: messageId,
      error,
    });
  }
}
