/**
 * The one route from SES feedback (events, bounce and complaint notifications) back to our email:
 * the SES message id. SES assigns it, so no tenant can choose it. The sender records it
 * (keys.sesMessage) in the same transaction as the email's `sent`, with the configuration set it
 * sent through.
 *
 * Tags are never used to route: a send's own tags travel in the same `mail.tags` map as ours, so
 * a project that tagged its mail `project_id=<another project>` would otherwise change that
 * project's emails and suppression list. (The tag names the sender sets are refused on input
 * too: RESERVED_TAG_NAMES in ./model.ts.)
 */
import * as keys from '../platform/db/keys';
import { getItem, put, type WriteAction } from '../platform/db/table';
import { emailExpiresAt } from './retention';
import { now } from '../platform/clock';

/** The lookup the sender writes in the transaction that records the SES message id; it expires with the email (./retention.ts). */
export const sesMessageWrite = (
  messageId: string,
  projectId: string,
  emailId: string,
  configurationSet: string | undefined,
): WriteAction =>
  put({
    ...keys.sesMessage(messageId),
    type: 'ses_message',
    project_id: projectId,
    email_id: emailId,
    ...(configurationSet ? { configuration_set: configurationSet } : {}),
    expires_at: emailExpiresAt(now()),
  });

export type FeedbackRoute =
  | { kind: 'email'; projectId: string; emailId: string }
  /** no lookup (yet): the sender may not have recorded the send, or it is no message of ours */
  | { kind: 'unknown' }
  /** the notification names another configuration set than the one the email was sent through */
  | { kind: 'mismatch'; recorded: string; notified: string };

/** Where an SES event belongs, by its message id alone; its configuration set, when it names one, must be the send's. */
export async function routeFeedback(mail: {
  messageId: string;
  tags?: Record<string, unknown>;
}): Promise<FeedbackRoute> {
  const lookup = await getItem(keys.sesMessage(mail.messageId));
  if (!lookup) return { kind: 'unknown' };
  const notified = configurationSetOf(mail);
  const recorded = typeof lookup.configuration_set === 'string' ? lookup.configuration_set : undefined;
  if (recorded && notified && recorded !== notified) return { kind: 'mismatch', recorded, notified };
  return { kind: 'email', projectId: String(lookup.project_id), emailId: String(lookup.email_id) };
}

/** `ses:configuration-set`, which SES itself adds to event publishing (identity notifications have none). */
function configurationSetOf(mail: { tags?: Record<string, unknown> }): string | undefined {
  const value = mail.tags?.['ses:configuration-set'];
  return Array.isArray(value) && typeof value[0] === 'string' && value[0] ? value[0] : undefined;
}
