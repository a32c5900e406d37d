/**
 * SES feedback -> the suppression list (the suppression queue's consumer calls `applySuppressionFeedback`
 * for each message). The queue only receives Bounce and Complaint events (the SNS subscription's
 * filter policy); anything else is ignored.
 *
 * Rules (the contract's Suppression rules):
 * - A Permanent bounce suppresses every bounced recipient: source `bounce`, subtype = the SES
 *   bounceSubType (General, NoEmail, Suppressed, OnAccountSuppressionList; any other Permanent
 *   subtype is recorded as General and named in the reason), reason = the recipient's SMTP
 *   diagnostic code, else a short description, message_id = our email id.
 * - Transient and Undetermined bounces never suppress.
 * - A complaint suppresses every complained recipient: source `complaint`, subtype = the feedback
 *   type (abuse, fraud, virus, other; `auth-failure` and unknown values are recorded as other; null
 *   when SES gives none).
 * - A `not-spam` complaint never suppresses; it withdraws a complaint entry of each recipient.
 * - An address that already has an entry keeps it as it is, so a redelivered notification writes
 *   nothing new and emits nothing.
 * - Each entry written emits `suppression.added`, each withdrawal `suppression.removed`, in the
 *   entry's own transaction (./suppressions.ts): `source_id` in Resend's fields is our email id.
 *
 * Both formats are read: SES event publishing (`eventType`, what the configuration sets publish)
 * and the older identity notifications (`notificationType`), each either inside an SNS envelope or
 * bare (raw message delivery). The project and the email come only from the SES message id
 * lookup the sender writes (shared/emails/ses-message.ts), never from tags: a send's own tags
 * could name another project. A message whose id has no lookup is an error, so it is retried
 * (the sender may not have written the lookup yet) and ends in the DLQ; one whose configuration
 * set is not the send's is dropped and logged. A test-mode email's lookup names its project's
 * test twin (its simulated feedback: shared/emails/test-mode-send.ts), so its entries are written
 * there, as test-mode ones (./suppressions.ts `feedbackCaller`).
 */
import { isAddress } from '../platform/mail/addresses';
import { routeFeedback } from '../emails/ses-message';
import { logger } from '../platform/log';
import {
  MalformedSesNotification,
  readSesNotification,
  sesKind,
  type SesNotification,
  type SesRecipient,
} from '../platform/aws/ses-notification';
import type { SuppressionEntry } from './model';
import { suppressAddress, withdrawComplaint } from './suppressions';

/** Feedback for an SES message no email was recorded for (yet): retried, then kept in the DLQ. */
export class NoEmailForNotification extends Error {
  override name = 'NoEmailForNotification';
}

const PERMANENT_SUBTYPES = new Set(['General', 'NoEmail', 'Suppressed', 'OnAccountSuppressionList']);
const BOUNCE_DESCRIPTIONS: Record<string, string> = {
  General: 'Permanent bounce: the receiving mail server rejected the address',
  NoEmail: 'Permanent bounce: the address does not exist',
  Suppressed: 'Permanent bounce: SES suppressed the address because it recently bounced',
  OnAccountSuppressionList: 'Permanent bounce: the address is on the account-level suppression list of SES',
};
const FEEDBACK_TYPES = new Set(['abuse', 'fraud', 'virus', 'other']);

/** What one SES event asks of the suppression list: entries to write, addresses to withdraw. */
export interface FeedbackDecision {
  suppress: Omit<SuppressionEntry, 'message_id'>[];
  withdraw: string[];
}

/** Recipient address of a bounced/complained recipient: the bare address, lower-cased. */
function recipientAddress(recipient: Pick<SesRecipient, 'emailAddress'>): string {
  const raw = recipient.emailAddress;
  const bare = (/<([^>]+)>\s*$/.exec(raw)?.[1] ?? raw).trim().toLowerCase();
  if (!isAddress(bare)) throw new MalformedSesNotification(`recipient ${JSON.stringify(raw)} is not an email address`);
  return bare;
}

/** The rules above, on one SES event; no I/O. */
export function decide(ses: SesNotification): FeedbackDecision {
  const kind = sesKind(ses);
  if (kind === 'Bounce' && ses.bounce) {
    const bounce = ses.bounce;
    if (bounce.bounceType !== 'Permanent') return { suppress: [], withdraw: [] };
    const sesSubtype = bounce.bounceSubType ?? 'General';
    const subtype = PERMANENT_SUBTYPES.has(sesSubtype) ? sesSubtype : 'General';
    const description = BOUNCE_DESCRIPTIONS[sesSubtype] ?? `Permanent bounce (SES subtype ${sesSubtype})`;
    return {
      suppress: bounce.bouncedRecipients.map((r) => ({
        email: recipientAddress(r),
        source: 'bounce' as const,
        subtype,
        reason: r.diagnosticCode?.trim() ? r.diagnosticCode.trim() : description,
      })),
      withdraw: [],
    };
  }
  if (kind === 'Complaint' && ses.complaint) {
    const complaint = ses.complaint;
    const complained = complaint.complainedRecipients.map(recipientAddress);
    const feedback = complaint.complaintFeedbackType?.trim().toLowerCase() ?? '';
    if (feedback === 'not-spam') return { suppress: [], withdraw: complained };
    const subtype = feedback ? (FEEDBACK_TYPES.has(feedback) ? feedback : 'other') : null;
    const reason = subtype
      ? `The recipient complained (feedback type ${feedback})`
      : 'The recipient complained (no feedback type given)';
    return {
      suppress: complained.map((email) => ({ email, source: 'complaint' as const, subtype, reason })),
      withdraw: [],
    };
  }
  return { suppress: [], withdraw: [] }; // not feedback the suppression list cares about
}

export interface FeedbackOutcome {
  project_id?: string;
  /** the notification named another configuration set than the send's: nothing applied */
  misrouted?: true;
  suppressed: number;
  withdrawn: number;
  /** addresses that already had an entry */
  unchanged: number;
}

/** Applies one SQS message body; throws MalformedSesNotification for a message that can never be read, NoEmailForNotification for one whose email is unknown (yet). */
export async function applySuppressionFeedback(body: string): Promise<FeedbackOutcome> {
  const ses = readSesNotification(body);
  const decision = decide(ses);
  const outcome: FeedbackOutcome = { suppressed: 0, withdrawn: 0, unchanged: 0 };
  if (decision.suppress.length === 0 && decision.withdraw.length === 0) return outcome;
  const route = await routeFeedback(ses.mail);
  if (route.kind === 'unknown')
    throw new NoEmailForNotification(`no email for SES message ${ses.mail.messageId} (no SES message id lookup)`);
  if (route.kind === 'mismatch') {
    logger.warn('SES notification dropped: its configuration set is not the one the email was sent through', {
      ses_message_id: ses.mail.messageId,
      ...route,
    });
    return { ...outcome, misrouted: true };
  }
  const { projectId, emailId } = route;
  outcome.project_id = projectId;
  // One address may be listed twice in a notification: each is written once.
  const entries = [...new Map(decision.suppress.map((e) => [e.email, e])).values()];
  const results = await Promise.all([
    ...entries.map((entry) =>
      suppressAddress(projectId, { ...entry, message_id: emailId }).then((created) =>
        created ? 'suppressed' : 'unchanged',
      ),
    ),
    ...[...new Set(decision.withdraw)].map((email) =>
      withdrawComplaint(projectId, email).then((removed) => (removed ? 'withdrawn' : 'unchanged')),
    ),
  ]);
  for (const result of results) outcome[result as 'suppressed' | 'withdrawn' | 'unchanged']++;
  return outcome;
}
