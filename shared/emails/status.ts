/**
 * Email status from SES events (the email-events queue): each SES event moves the email's
 * `last_event` forward and becomes a platform event (`email.delivered`, `email.bounced`, ...)
 * with the detail in `data.object` (`bounce`, `complaint`, `click`, `delay`, `failure`).
 *
 * - Forward only: events arrive out of order (SNS and SQS promise no order), so `last_event`
 *   changes only to a later stage (RANK); the platform event is still written, because it happened.
 * - Idempotent: every SES event leaves a marker item, written with a condition in the same
 *   transaction as its effects, so a redelivered notification changes nothing and emits nothing.
 * - The email is found only through the SES message id the sender recorded (./ses-message.ts),
 *   never through tags: a send's own tags could name another project's email.
 * - A Transient bounce (mailbox full, auto-reply) is `delivery_delayed`, not `bounced`; Send
 *   events are ignored (the sender records `sent` and emits `email.sent` itself).
 * - A permanent bounce or a complaint of live mail is counted for the project's reputation in the
 *   same transaction, and the reputation guard then looks at the project's last 24 hours
 *   (./reputation.ts): it may pause the project's sending.
 * - An event for an email the sender has not finished recording (`sending`) is retried later
 *   (NotYetSent), so the sender's own `sending -> sent` write is never overtaken.
 */
import { createHash } from 'node:crypto';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, isConditionFailed, put, transact, update, type WriteAction } from '../platform/db/table';
import { toSummary, type EmailItem } from './emails';
import type { LastEvent } from './model';
import { eventWrite } from '../events/events';
import type { EventType } from '../events/model';
import { sesKind, type SesNotification } from '../platform/aws/ses-notification';
import { logger } from '../platform/log';
import { now } from '../platform/clock';
import { metricsWrite, type CountedMetric } from './metrics';
import { routeFeedback } from './ses-message';
import { guardReputation, reputationWrite } from './reputation';

/** Later stages outrank earlier ones; a status never moves to a lower rank. */
const RANK: Record<LastEvent, number> = {
  queued: 0,
  scheduled: 0,
  sending: 1,
  sent: 2,
  delivery_delayed: 3,
  delivered: 4,
  opened: 5,
  clicked: 6,
  bounced: 7,
  failed: 7,
  complained: 8,
  suppressed: 9,
  canceled: 9,
};

/** SES event -> our status, platform event and detail; undefined for events we do not track. */
function translate(
  ses: SesNotification,
): { status: LastEvent; type?: EventType; detail: Record<string, unknown> } | undefined {
  switch (sesKind(ses)) {
    case 'Delivery':
      return { status: 'delivered', type: 'email.delivered', detail: { delivery: ses.delivery } };
    case 'DeliveryDelay':
      return { status: 'delivery_delayed', type: 'email.delivery_delayed', detail: { delay: ses.deliveryDelay } };
    case 'Bounce': {
      const bounce = ses.bounce!; // a Bounce has it (readSesNotification)
      const detail = {
        bounce: { type: bounce.bounceType, subtype: bounce.bounceSubType, recipients: bounce.bouncedRecipients ?? [] },
      };
      return bounce.bounceType === 'Permanent'
        ? { status: 'bounced', type: 'email.bounced', detail }
        : { status: 'delivery_delayed', type: 'email.delivery_delayed', detail };
    }
    case 'Complaint': {
      const complaint = ses.complaint!; // a Complaint has it (readSesNotification)
      if (complaint.complaintFeedbackType === 'not-spam') return undefined; // a withdrawal, handled by the suppression writer
      return {
        status: 'complained',
        type: 'email.complained',
        detail: {
          complaint: {
            feedback_type: complaint.complaintFeedbackType ?? null,
            recipients: complaint.complainedRecipients ?? [],
          },
        },
      };
    }
    case 'Open':
      return { status: 'opened', type: 'email.opened', detail: { open: ses.open } };
    case 'Click':
      return {
        status: 'clicked',
        type: 'email.clicked',
        detail: {
          click: {
            link: ses.click?.link,
            timestamp: ses.click?.timestamp,
            user_agent: ses.click?.userAgent,
            ip_address: ses.click?.ipAddress ?? null,
          },
        },
      };
    case 'Reject':
      return {
        status: 'failed',
        type: 'email.failed',
        detail: { failure: { reason: ses.reject?.reason ?? 'Rejected by SES' } },
      };
    case 'RenderingFailure':
      return {
        status: 'failed',
        type: 'email.failed',
        detail: { failure: { reason: ses.failure?.errorMessage ?? 'Rendering failure' } },
      };
    default:
      return undefined;
  }
}

/** An email notes at most this many distinct clicked links (status items stay small); later links count every click as unique. */
const MAX_NOTED_LINKS = 25;

/** The link a Click event of a broadcast email names: its id (a hash of the URL) and whether this email clicked it before. */
function clickedLink(ses: SesNotification, item: EmailItem): { id: string; url: string; first: boolean } | undefined {
  const url = ses.click?.link;
  if (sesKind(ses) !== 'Click' || !item.broadcast_id || typeof url !== 'string' || !url) return undefined;
  const id = createHash('sha256').update(url).digest('hex').slice(0, 16);
  const noted = item.clicked_links ?? new Set<string>();
  return { id, url: url.slice(0, 2048), first: !noted.has(id) && noted.size < MAX_NOTED_LINKS };
}

const linkClickWrite = (
  projectId: string,
  item: EmailItem,
  click: { id: string; url: string; first: boolean },
): WriteAction =>
  update(keys.broadcastLink(projectId, item.broadcast_id!, item.id, click.id), {
    set: { url: click.url, broadcast_id: item.broadcast_id! },
    add: { clicks: 1, unique_clicks: click.first || (item.clicked_links?.size ?? 0) >= MAX_NOTED_LINKS ? 1 : 0 },
  });

/** What one SES event adds to the project's metrics (./metrics.ts); `seen`: the email's status when it came. */
function metricCounts(ses: SesNotification, seen: LastEvent): Partial<Record<CountedMetric, number>> {
  switch (sesKind(ses)) {
    case 'Delivery':
      return { delivered: 1 };
    case 'DeliveryDelay':
      return { delivery_delayed: 1 };
    case 'Bounce':
      return ses.bounce?.bounceType === 'Permanent'
        ? { bounced: 1, bounced_permanent: 1 }
        : { bounced: 1, bounced_transient: 1 };
    case 'Complaint':
      return { complained: 1 };
    case 'Open':
      return { opened: 1, ...(RANK[seen] < RANK.opened ? { unique_opened: 1 } : {}) };
    case 'Click':
      return { clicked: 1, ...(RANK[seen] < RANK.clicked ? { unique_clicked: 1 } : {}) };
    default:
      return { failed: 1 }; // Reject, Rendering Failure
  }
}

export class NotYetSent extends Error {}

/** `misrouted`: the notification's configuration set is not the one the email was sent through (dropped, logged). */
export type StatusOutcome = 'applied' | 'duplicate' | 'ignored' | 'unknown_email' | 'misrouted';

/** Applies one SES event to its email. */
export async function applySesEvent(ses: SesNotification): Promise<StatusOutcome> {
  const translated = translate(ses);
  if (!translated) return 'ignored';
  const route = await routeFeedback(ses.mail);
  if (route.kind === 'unknown') return 'unknown_email';
  if (route.kind === 'mismatch') {
    logger.warn('SES event dropped: its configuration set is not the one the email was sent through', {
      ses_message_id: ses.mail.messageId,
      ...route,
    });
    return 'misrouted';
  }
  const target = route;
  const eventKey = createHash('sha256')
    .update(
      JSON.stringify([
        ses.eventType ?? ses.notificationType,
        ses[
          (Object.keys(ses).find((k) => !['eventType', 'notificationType', 'mail'].includes(k)) ??
            '') as keyof SesNotification
        ],
      ]),
    )
    .digest('hex');
  const marker = put(
    {
      ...keys.sesEvent(ses.mail.messageId, eventKey),
      type: 'ses_event',
      project_id: target.projectId,
      expires_at: Math.floor(now() / 1000) + 7 * 24 * 3600,
    },
    { ifAbsent: { tag: 'duplicate' } },
  );
  let item = (await getItem(keys.email(target.projectId, target.emailId))) as EmailItem | undefined;
  for (let attempt = 0; attempt < 5; attempt++) {
    if (!item) return 'unknown_email';
    if (RANK[item.last_event] < RANK.sent) throw new NotYetSent(`email ${item.id} is still ${item.last_event}`);
    const forward = RANK[translated.status] > RANK[item.last_event];
    const current = forward ? translated.status : item.last_event;
    const writes: WriteAction[] = [marker];
    // a broadcast email's click: its link's counts (GET /broadcasts/{id}/clicked-links), and the link noted on the email for unique clicks
    const click = clickedLink(ses, item);
    if (forward || click?.first) {
      writes.push(
        update(
          keys.email(target.projectId, target.emailId),
          {
            set: forward ? { last_event: translated.status } : {},
            add: click?.first ? { clicked_links: new Set([click.id]) } : {},
            condition: { expression: 'last_event = :seen', values: { ':seen': item.last_event } },
          },
          { tag: 'moved', withItem: true },
        ),
      );
    }
    if (click) writes.push(linkClickWrite(target.projectId, item, click));
    if (translated.type) {
      const caller: Caller = { projectId: target.projectId, livemode: item.livemode, permission: 'full_access' };
      writes.push(
        eventWrite(caller, translated.type, { ...toSummary(item), last_event: current, ...translated.detail }),
      );
    }
    // the reputation guard's counts (./reputation.ts), once per SES event (the marker's transaction): live mail only
    const harm =
      translated.status === 'bounced' ? 'bounced' : translated.status === 'complained' ? 'complained' : undefined;
    if (harm && item.livemode) writes.push(reputationWrite(target.projectId, target.emailId, { [harm]: 1 }));
    if (item.livemode) writes.push(metricsWrite(target.projectId, target.emailId, metricCounts(ses, item.last_event))); // GET /emails/metrics
    try {
      await transact(writes);
      // applied either way: a guard that fails now looks again at the project's next bounce or complaint
      if (harm && item.livemode)
        await guardReputation(target.projectId).catch((error) =>
          logger.error('reputation guard failed', { project_id: target.projectId, error }),
        );
      return 'applied';
    } catch (error) {
      if (isConditionFailed(error, 'duplicate')) return 'duplicate';
      if (!isConditionFailed(error, 'moved')) throw error;
      item = error.item as EmailItem | undefined; // another event moved it meanwhile: go on from the email as it is now
    }
  }
  throw new Error(`email ${target.emailId}: status kept changing under five attempts`);
}
