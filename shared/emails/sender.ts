/**
 * Sends one accepted email through SES v2: the sender worker calls `sendQueuedEmail` for each
 * message of the send queue.
 *
 * Exactly-once as far as we can make it: the email is claimed (queued|scheduled -> sending) with
 * a condition before SES is called, so a duplicate message or a second sender finds it taken.
 * If a sender dies after SES accepted the email but before recording it, the email stays
 * `sending` and is not sent again (at most once: SES gives no way to ask whether it sent it).
 * Throttling or a fault before SES accepted puts it back to `queued` for a later attempt.
 */
import { SendEmailCommand } from '../platform/aws/ses';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { batchGet, getItem, isConditionFailed, put, transact, update } from '../platform/db/table';
import { bareAddress, SEND_LEASE_MS, toRecord, type EmailItem } from './emails';
import { eventWrite } from '../events/events';
import { newId } from '../platform/ids';
import { acquireSendSlot } from './send-rate';
import { sesSendClient } from '../platform/aws/ses';

/** SES error names that mean "this will never succeed as sent", as opposed to throttling or a fault. */
export const PERMANENT_SEND_ERRORS = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'AccountSuspendedException',
  'SendingPausedException',
  'BadRequestException',
  'NotFoundException',
]);

export type SendOutcome = 'sent' | 'skipped' | 'suppressed' | 'failed' | 'retry';

const WAITING = { expression: 'last_event IN (:queued, :scheduled)', values: { ':queued': 'queued', ':scheduled': 'scheduled' } };
const SENDING = { expression: 'last_event = :sending', values: { ':sending': 'sending' } };

async function suppressedAddresses(projectId: string, addresses: string[]): Promise<Set<string>> {
  const bare = [...new Set(addresses.map(bareAddress))];
  const found = await batchGet(bare.map((a) => keys.suppression(projectId, a)));
  return new Set(found.map((item) => String(item.SK).slice('SUPPRESSION#'.length)));
}

function sesRequest(email: EmailItem, keep: (address: string) => boolean) {
  return new SendEmailCommand({
    FromEmailAddress: email.from,
    Destination: { ToAddresses: email.to.filter(keep), CcAddresses: email.cc.filter(keep), BccAddresses: email.bcc.filter(keep) },
    ReplyToAddresses: email.reply_to.length ? email.reply_to : undefined,
    ConfigurationSetName: email.configuration_set,
    // The SES events of this email find it again through these tags.
    EmailTags: [{ Name: 'email_id', Value: email.id }, { Name: 'project_id', Value: email.project_id }, ...email.tags.map((t) => ({ Name: t.name, Value: t.value }))],
    Content: {
      Simple: {
        Subject: { Data: email.subject, Charset: 'UTF-8' },
        Body: {
          ...(email.html !== null ? { Html: { Data: email.html, Charset: 'UTF-8' } } : {}),
          ...(email.text !== null ? { Text: { Data: email.text, Charset: 'UTF-8' } } : {}),
        },
        Headers: Object.entries(email.headers).map(([Name, Value]) => ({ Name, Value })),
        Attachments: email.attachments?.map((a) => ({ FileName: a.filename, RawContent: Buffer.from(a.content, 'base64'), ContentType: a.content_type })),
      },
    },
  });
}

export async function sendQueuedEmail(projectId: string, emailId: string): Promise<SendOutcome> {
  const key = keys.email(projectId, emailId);
  const email = (await getItem(key)) as EmailItem | undefined;
  if (!email || !['queued', 'scheduled'].includes(email.last_event)) return 'skipped';
  if (email.last_event === 'scheduled' && email.scheduled_at && Date.parse(email.scheduled_at) > Date.now()) return 'skipped'; // rescheduled later
  const caller: Caller = { projectId, livemode: email.livemode, permission: 'full_access' };

  const suppressed = await suppressedAddresses(projectId, [...email.to, ...email.cc, ...email.bcc]);
  const keep = (address: string) => !suppressed.has(bareAddress(address));
  if (![...email.to, ...email.cc, ...email.bcc].some(keep)) {
    try {
      await transact([update(key, { set: { last_event: 'suppressed' }, remove: ['GSI1PK', 'GSI1SK'], condition: WAITING }, { tag: 'taken' })]);
    } catch (error) {
      if (isConditionFailed(error, 'taken')) return 'skipped';
      throw error;
    }
    return 'suppressed';
  }

  try {
    await transact([
      update(key, { set: { last_event: 'sending' }, remove: ['GSI1PK', 'GSI1SK'], condition: WAITING }, { tag: 'taken' }),
      eventWrite(caller, 'email.sending', { ...toRecord(email), last_event: 'sending' }),
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'taken')) return 'skipped';
    throw error;
  }

  let messageId: string;
  if (!email.livemode) {
    messageId = `test-${newId()}`; // test keys never reach SES
  } else {
    try {
      await acquireSendSlot();
      const out = await sesSendClient.send(sesRequest(email, keep));
      messageId = out.MessageId!;
    } catch (error) {
      const name = (error as Error).name;
      if (PERMANENT_SEND_ERRORS.has(name)) {
        const reason = `${name}: ${(error as Error).message}`;
        const failed = { ...toRecord(email), last_event: 'failed' as const };
        await transact([update(key, { set: { last_event: 'failed', failure_reason: reason }, condition: SENDING }), eventWrite(caller, 'email.failed', { ...failed, failure_reason: reason })]);
        return 'failed';
      }
      // Throttled or a fault: SES did not take it; back to queued for the next attempt.
      await transact([
        update(key, {
          set: { last_event: 'queued', ...keys.emailDue(projectId, emailId, new Date(Date.now() + SEND_LEASE_MS).toISOString()) },
          condition: SENDING,
        }),
      ]);
      return 'retry';
    }
  }

  const sent = { ...toRecord(email), last_event: 'sent' as const, message_id: messageId };
  await transact([
    update(key, { set: { last_event: 'sent', message_id: messageId }, condition: SENDING }),
    put({ ...keys.sesMessage(messageId), type: 'ses_message', project_id: projectId, email_id: emailId }),
    eventWrite(caller, 'email.sent', sent),
  ]);
  return 'sent';
}
