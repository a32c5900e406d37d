/**
 * Sends one accepted email through SES v2: the sender worker calls `sendQueuedEmail` for each
 * message of the send queue.
 *
 * At most once: the email is claimed (queued|scheduled -> sending) with a condition before SES
 * is called, so a duplicate message or a second sender finds it taken. The From domain is checked
 * again first, from its name's claim read with the suppression entries (the project's, sending
 * enabled, verified for live mail): a scheduled or retried email whose domain was deleted, or is
 * now another project's, ends `failed` with the reason and never reaches SES. A read, not a
 * ConditionCheck in the claim's transaction: a ConditionCheck bills a write on the claim's
 * partition for every email, 1,000 write units a second for one domain sending 500 a second,
 * all a partition takes; a domain deleted in the milliseconds between the read and the claim is
 * no different from one deleted just after the send.
 *
 * The claim records when (`sending_at`) and keeps a due entry at the end of its lease
 * (SEND_LEASE_MS, far above the sender's Lambda timeout). If the sender dies between the claim
 * and recording the outcome, the due-email dispatcher finds the claim after the lease and the
 * next sender ends it `failed` with UNCONFIRMED_SEND: SES may or may not have taken it, and it
 * cannot be asked, so it is never sent again.
 *
 * The send slot comes first (./send-rate.ts, the email's lane: bulk for broadcast emails): a
 * message that finds no slot within its wait writes nothing and emits nothing, and the worker
 * makes it come back about when its turn in the backlog should be. So a slow account (the SES
 * sandbox's 1 a second) makes messages wait, never fail, and a retry never emits a second
 * `email.sending` (only the first claim of an email emits it).
 *
 * A live email of a project whose sending the reputation guard paused (./reputation.ts) is held:
 * left waiting, due again after PAUSED_HOLD_SECONDS, neither sent nor failed.
 *
 * SES refusing with an answer (throttling, a 4xx or 5xx it returns) means it did not send: the
 * email goes back to `queued`, at most MAX_SEND_ATTEMPTS times in all, then `failed` with SES's
 * error. No answer at all (a timeout, a dropped connection) may hide a send: `failed`, as above.
 *
 * A test-mode email (`livemode: false`) takes the same steps (domain check, suppressions of its
 * test twin, claim, `sent`) but never reaches SES: no send slot, no SES client; its message is
 * rendered and stored instead, and after `sent` the simulated SES events are published to the
 * same feedback queues SES's reach (./test-mode-send.ts says how, and its crash rule).
 */
import { AttachmentFetchError, attachmentsToSend, PathNotFetched, type SesAttachment } from './attachments';
import { metricsWrite } from './metrics';
import { topicOptOuts } from '../audience/topic-subscriptions';
import { countMetric } from '../platform/metrics';
import { now, nowIso } from '../platform/clock';
import { SendEmailCommand } from '../platform/aws/ses';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  getItem,
  isConditionFailed,
  transact,
  transactRetryingConflicts,
  update,
  type WriteAction,
} from '../platform/db/table';
import {
  addressDomain,
  bareAddress,
  pendingEmailDelete,
  pendingEmailWrite,
  SEND_LEASE_MS,
  toSummary,
  type EmailItem,
} from './emails';
import { findSendingDomain, sendingDomainProblems, type SendingDomain } from '../domains/domains';
import { eventWrite } from '../events/events';
import { acquireSendSlot, laneOf, NoSendSlot } from './send-rate';
import { sesMessageWrite } from './ses-message';
import { getEmailContent, type EmailContent } from './content';
import { sesSendClient } from '../platform/aws/ses';
import { sentMessageIdWrites } from './inbox-message-id';
import { deliverToSandbox, publishSimulatedFeedback, storeRenderedMessage, testMessageId } from './test-mode-send';
import { projectSettings } from '../project/settings';
import { reputationWrite } from './reputation';
import { sendFootprint, type MemoryBudget } from './sender-memory';

/** SES error names that mean "this will never succeed as sent", as opposed to throttling or a fault. */
export const PERMANENT_SEND_ERRORS = new Set([
  'MessageRejected',
  'MailFromDomainNotVerifiedException',
  'AccountSuspendedException',
  'SendingPausedException',
  'BadRequestException',
  'NotFoundException',
]);

/** `{waitSeconds}`: no send slot within the wait (nothing was written, SES not called): come back then. */
export type SendOutcome = 'sent' | 'skipped' | 'suppressed' | 'failed' | 'retry' | { waitSeconds: number };

/** Sends SES answered with an error (it did not send) before the email ends `failed` with SES's last error. */
export const MAX_SEND_ATTEMPTS = 5;
/** The reason of an email whose content is gone (past the content bucket's lifecycle) when its turn comes. */
export const MISSING_CONTENT = 'not sent: the content of the email is no longer stored';
/** The reason of an email whose sender stopped between its claim and recording what SES did. */
export const UNCONFIRMED_SEND = 'the sender stopped before confirming the send; it may or may not have been sent';

const WAITING = {
  expression: 'last_event IN (:queued, :scheduled)',
  values: { ':queued': 'queued', ':scheduled': 'scheduled' },
};
/** This sender's claim still holds: `sending`, claimed at the time it recorded (not a later claim after a put-back). */
const claimedAt = (sendingAt: string) => ({
  expression: 'last_event = :sending AND sending_at = :claimed_at',
  values: { ':sending': 'sending', ':claimed_at': sendingAt },
});
/** A claim's end removes its due entry and claim time. */
const CLAIM_ATTRIBUTES = ['GSI1PK', 'GSI1SK', 'sending_at'];

/** SES answered the request with an error (so it did not send), or the connection was never made. */
function sesDidNotSend(error: unknown): boolean {
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return (status !== undefined && status >= 400) || (error as { code?: string }).code === 'ECONNREFUSED';
}

/** The metrics write of an email's outcome, for its transaction (./metrics.ts): live mail only. */
const counted = (email: EmailItem, metric: 'sent' | 'failed' | 'suppressed'): WriteAction[] =>
  email.livemode ? [metricsWrite(email.project_id, email.id, { [metric]: 1 })] : [];

/** Ends a claimed email `failed` with `reason` and `email.failed`, if the claim is still this one. */
async function failClaimed(caller: Caller, email: EmailItem, sendingAt: string, reason: string): Promise<SendOutcome> {
  try {
    await transact([
      update(
        keys.email(email.project_id, email.id),
        {
          set: { last_event: 'failed', failure_reason: reason },
          remove: CLAIM_ATTRIBUTES,
          condition: claimedAt(sendingAt),
        },
        { tag: 'claim lost' },
      ),
      eventWrite(caller, 'email.failed', { ...toSummary(email), last_event: 'failed', failure_reason: reason }),
      ...counted(email, 'failed'),
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'claim lost')) return 'skipped';
    throw error;
  }
  return 'failed';
}

/** Ends an email that is still waiting (never claimed) `failed` with `reason` and `email.failed` (also the fetch stage's end for a fetch that failed: ./attachment-fetch.ts). */
export async function failWaiting(caller: Caller, email: EmailItem, reason: string): Promise<SendOutcome> {
  try {
    await transact([
      update(
        keys.email(email.project_id, email.id),
        { set: { last_event: 'failed', failure_reason: reason }, remove: ['GSI1PK', 'GSI1SK'], condition: WAITING },
        { tag: 'taken' },
      ),
      pendingEmailDelete(email.project_id, email),
      eventWrite(caller, 'email.failed', { ...toSummary(email), last_event: 'failed', failure_reason: reason }),
      ...counted(email, 'failed'),
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'taken')) return 'skipped';
    throw error;
  }
  return 'failed';
}

/** How long a paused project's email waits before the due-email dispatcher brings it back (PAUSED_HOLD_SECONDS, 300). */
const pausedHoldMs = () => {
  const seconds = Number(process.env.PAUSED_HOLD_SECONDS);
  return (Number.isFinite(seconds) && seconds > 0 ? seconds : 300) * 1000;
};

/**
 * The project's sending is paused (./reputation.ts): the email stays as it is (queued or scheduled)
 * and comes back later, through its due time, until an operator resumes the project.
 */
async function holdWhilePaused(email: EmailItem): Promise<SendOutcome> {
  const due = new Date(now() + pausedHoldMs()).toISOString();
  try {
    await transact([
      update(
        keys.email(email.project_id, email.id),
        { set: keys.emailDue(email.project_id, email.id, due), condition: WAITING },
        { tag: 'taken' },
      ),
    ]);
  } catch (error) {
    if (!isConditionFailed(error, 'taken')) throw error;
  }
  return 'skipped';
}

/**
 * An email with a `path` attachment whose bytes were never stored and that is not marked for the
 * fetch stage: one accepted before there was a fetch stage (the sender fetched then). Marked now
 * (`attachments_pending`), still waiting: its lease brings it to the fetch stage through the
 * due-email dispatcher (./due.ts), and the sender never fetches.
 */
async function leaveToFetchStage(email: EmailItem): Promise<SendOutcome> {
  try {
    await transact([
      update(
        keys.email(email.project_id, email.id),
        { set: { attachments_pending: true }, condition: WAITING },
        { tag: 'taken' },
      ),
    ]);
  } catch (error) {
    if (!isConditionFailed(error, 'taken')) throw error;
  }
  return 'skipped';
}

/**
 * A message (redelivered, or the dispatcher's after the lease) for an email still `sending`: a
 * live sender holds it within the lease; after it, its sender died and it ends `failed`.
 */
async function endAbandonedClaim(caller: Caller, email: EmailItem): Promise<SendOutcome> {
  if (!email.sending_at || Date.parse(email.sending_at) + SEND_LEASE_MS > now()) return 'skipped';
  return failClaimed(caller, email, email.sending_at, UNCONFIRMED_SEND);
}

/** Why the From domain cannot send this email now (undefined when it can), from its name's claim. */
function domainRefusal(caller: Caller, email: EmailItem, domain: SendingDomain): string | undefined {
  const problems = sendingDomainProblems(caller, addressDomain(email.from), domain, 'from');
  return problems.length ? `not sent: ${problems.map((p) => p.message).join('; ')}` : undefined;
}

async function suppressedAddresses(projectId: string, addresses: string[]): Promise<Set<string>> {
  const bare = [...new Set(addresses.map(bareAddress))];
  const found = await batchGet(bare.map((a) => keys.suppression(projectId, a)));
  return new Set(found.map((item) => String(item.SK).slice('SUPPRESSION#'.length)));
}

/** The SendEmail request of an email: what live mail gives SES, and what test mode renders and simulates from (./test-mode-send.ts). */
function sesInput(
  email: EmailItem,
  content: EmailContent,
  attachments: SesAttachment[],
  keep: (address: string) => boolean,
  tenant: string | null,
) {
  return {
    // the project's SES tenant, when the domain's resources are its (shared/domains/tenants.ts)
    ...(tenant ? { TenantName: tenant } : {}),
    FromEmailAddress: email.from,
    Destination: {
      ToAddresses: email.to.filter(keep),
      CcAddresses: email.cc.filter(keep),
      BccAddresses: email.bcc.filter(keep),
    },
    ReplyToAddresses: email.reply_to.length ? email.reply_to : undefined,
    ConfigurationSetName: email.configuration_set,
    // The SES events of this email find it again through these tags.
    EmailTags: [
      { Name: 'email_id', Value: email.id },
      { Name: 'project_id', Value: email.project_id },
      ...email.tags.map((t) => ({ Name: t.name, Value: t.value })),
    ],
    Content: {
      Simple: {
        Subject: { Data: email.subject, Charset: 'UTF-8' },
        Body: {
          ...(content.html !== null ? { Html: { Data: content.html, Charset: 'UTF-8' } } : {}),
          ...(content.text !== null ? { Text: { Data: content.text, Charset: 'UTF-8' } } : {}),
        },
        Headers: Object.entries(content.headers).map(([Name, Value]) => ({ Name, Value })),
        ...(attachments.length ? { Attachments: attachments } : {}),
      },
    },
  } satisfies ConstructorParameters<typeof SendEmailCommand>[0];
}

/**
 * Sends one email (see the module comment). `slotWaitMs`: how long it may wait for a send slot
 * (the worker's remaining time); the slot is taken BEFORE the claim, so a message that finds no
 * slot writes nothing and emits nothing, and comes back later (`{waitSeconds}`).
 */
export async function sendQueuedEmail(
  projectId: string,
  emailId: string,
  options: { slotWaitMs?: number; budget?: MemoryBudget } = {},
): Promise<SendOutcome> {
  const key = keys.email(projectId, emailId);
  const email = (await getItem(key)) as EmailItem | undefined;
  if (!email) return 'skipped';
  const caller: Caller = { projectId, livemode: email.livemode, permission: 'full_access' };
  if (email.last_event === 'sending') return endAbandonedClaim(caller, email);
  if (!['queued', 'scheduled'].includes(email.last_event)) return 'skipped';
  if (email.last_event === 'scheduled' && email.scheduled_at && Date.parse(email.scheduled_at) > now())
    return 'skipped'; // rescheduled later
  // its `path` attachments are not stored yet: the fetch stage's (./attachment-fetch.ts), which the dispatcher sends it to when its lease ends
  if (email.attachments_pending) return 'skipped';

  if (!options.budget) return sendEmail(caller, email, options.slotWaitMs);
  // the bytes it will hold, reserved before anything large is read (./sender-memory.ts); no room in time: it comes back, nothing written
  // machine time: the worker's remaining time, a budget of waiting (setTimeout in ./sender-memory.ts)
  const deadline = Date.now() + (options.slotWaitMs ?? DEFAULT_BUDGET_WAIT_MS);
  const release = await options.budget.take(await sendFootprint(email), deadline);
  if (!release) return { waitSeconds: 1 };
  try {
    return await sendEmail(
      caller,
      email,
      options.slotWaitMs === undefined ? undefined : Math.max(0, deadline - Date.now()),
    );
  } finally {
    release();
  }
}

/** How long an email may wait for the memory budget when its worker gave no slot wait. */
const DEFAULT_BUDGET_WAIT_MS = 20_000;

/** The send itself, once the email may be read (see `sendQueuedEmail`). */
async function sendEmail(caller: Caller, email: EmailItem, slotWaitMs: number | undefined): Promise<SendOutcome> {
  const { project_id: projectId, id: emailId } = email;
  const key = keys.email(projectId, emailId);
  // The content (stored once at acceptance, ./content.ts) is read with the suppression entries, before the claim;
  // an email scoped to a topic (`topic_id`) also reads who opted out of it.
  const recipients = [...email.to, ...email.cc, ...email.bcc];
  const [suppressed, content, domain, settings, optedOut] = await Promise.all([
    suppressedAddresses(projectId, recipients),
    getEmailContent(projectId, emailId),
    findSendingDomain(projectId, addressDomain(email.from)),
    email.livemode ? projectSettings(projectId) : undefined, // cached: read at most once a minute
    email.topic_id ? topicOptOuts(projectId, email.topic_id, recipients.map(bareAddress)) : new Set<string>(),
  ]);
  if (settings?.sending_paused) return holdWhilePaused(email);
  if (!optedOut) return failWaiting(caller, email, 'the topic was deleted');
  const keep = (address: string) => !suppressed.has(bareAddress(address)) && !optedOut.has(bareAddress(address));
  if (!recipients.some(keep)) {
    // Resend's event for a send the suppression list or the topic refused, with its reason
    const reason = recipients.some((address) => !suppressed.has(bareAddress(address)))
      ? 'topic_opt_out'
      : 'suppression_list';
    const message =
      reason === 'topic_opt_out'
        ? 'No recipient may get this topic (opted out or unsubscribed)'
        : 'Every recipient is on the suppression list';
    try {
      await transact([
        update(
          key,
          {
            set: { last_event: 'suppressed', suppressed_reason: reason },
            remove: ['GSI1PK', 'GSI1SK'],
            condition: WAITING,
          },
          { tag: 'taken' },
        ),
        pendingEmailDelete(projectId, email),
        eventWrite(caller, 'email.suppressed', {
          ...toSummary(email),
          last_event: 'suppressed',
          suppressed_reason: reason,
          suppressed: { reason, message, recipients },
        }),
        ...counted(email, 'suppressed'),
      ]);
    } catch (error) {
      if (isConditionFailed(error, 'taken')) return 'skipped';
      throw error;
    }
    return 'suppressed';
  }

  if (!content) return failWaiting(caller, email, MISSING_CONTENT);
  // the attachments' bytes, all stored (`path` ones by the fetch stage: ./attachment-fetch.ts); one no longer stored fails the email
  let attachments: SesAttachment[] = [];
  try {
    if (content.attachments?.length) attachments = await attachmentsToSend(projectId, emailId, content.attachments);
  } catch (error) {
    if (error instanceof PathNotFetched) return leaveToFetchStage(email);
    if (error instanceof AttachmentFetchError) return failWaiting(caller, email, `not sent: ${error.message}`);
    throw error;
  }
  const refusal = domainRefusal(caller, email, domain);
  if (refusal) return failWaiting(caller, email, refusal);

  if (email.livemode) {
    // the send slot first: SES is called right after the claim, in the slot's second
    try {
      await acquireSendSlot(laneOf(email), slotWaitMs);
    } catch (error) {
      if (error instanceof NoSendSlot) return { waitSeconds: error.retryAfterSeconds };
      throw error;
    }
  }

  const sendingAt = nowIso();
  const attempt = (email.send_attempts ?? 0) + 1;
  const leaseEnd = new Date(Date.parse(sendingAt) + SEND_LEASE_MS).toISOString();
  try {
    await transact([
      update(
        key,
        {
          set: {
            last_event: 'sending',
            sending_at: sendingAt,
            send_attempts: attempt,
            ...keys.emailDue(projectId, emailId, leaseEnd),
          },
          condition: WAITING,
        },
        { tag: 'taken' },
      ),
      pendingEmailDelete(projectId, email),
      // one email.sending per email: a claim after SES turned an attempt away is not news
      ...(attempt === 1 ? [eventWrite(caller, 'email.sending', { ...toSummary(email), last_event: 'sending' })] : []),
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'taken')) return 'skipped';
    throw error;
  }
  const putBack = async (): Promise<SendOutcome> => {
    // SES did not take it: queued again, due after a lease (the failed message is also redelivered sooner)
    try {
      await transact([
        update(
          key,
          {
            set: {
              last_event: 'queued',
              ...keys.emailDue(projectId, emailId, new Date(now() + SEND_LEASE_MS).toISOString()),
            },
            remove: ['sending_at'],
            condition: claimedAt(sendingAt),
          },
          { tag: 'claim lost' },
        ),
        pendingEmailWrite(projectId, email),
      ]);
    } catch (error) {
      if (isConditionFailed(error, 'claim lost')) return 'skipped';
      throw error;
    }
    return 'retry';
  };

  let messageId: string;
  let rendered: Uint8Array | undefined; // test mode: the message as rendered, for the sandbox's own inboxes
  const input = sesInput(email, content, attachments, keep, domain?.ses_tenant ?? null);
  if (!email.livemode) {
    // test keys never reach SES (./test-mode-send.ts): the message is rendered and stored instead
    messageId = testMessageId();
    try {
      rendered = await storeRenderedMessage(projectId, emailId, input, messageId, new Date(sendingAt));
    } catch (error) {
      // as SES refusing with an answer: not sent, tried again
      const reason = `not sent: the test-mode message could not be stored (${(error as Error).name}: ${(error as Error).message})`;
      if (attempt >= MAX_SEND_ATTEMPTS)
        return failClaimed(caller, email, sendingAt, `${reason} (after ${attempt} attempts)`);
      return putBack();
    }
  } else {
    try {
      const out = await sesSendClient.send(new SendEmailCommand(input));
      messageId = out.MessageId!;
    } catch (error) {
      const reason = `${(error as Error).name}: ${(error as Error).message}`;
      if (PERMANENT_SEND_ERRORS.has((error as Error).name)) return failClaimed(caller, email, sendingAt, reason);
      if (!sesDidNotSend(error)) return failClaimed(caller, email, sendingAt, `${UNCONFIRMED_SEND} (${reason})`);
      if (attempt >= MAX_SEND_ATTEMPTS)
        return failClaimed(caller, email, sendingAt, `${reason} (after ${attempt} attempts)`);
      if ((error as Error).name === 'TooManyRequestsException') countMetric('SendThrottled');
      return putBack();
    }
  }

  const sent = toSummary({ ...email, last_event: 'sent', message_id: messageId }); // the Message-ID header, and SES's id beside it
  // the counters (reputation, metrics) are shared by the project's sends, sharded: a conflict is only "not now"
  await transactRetryingConflicts([
    update(key, {
      set: { last_event: 'sent', message_id: messageId },
      remove: CLAIM_ATTRIBUTES,
      condition: claimedAt(sendingAt),
    }),
    sesMessageWrite(messageId, projectId, emailId, email.configuration_set), // SES feedback finds the email by this alone
    eventWrite(caller, 'email.sent', sent),
    ...(email.livemode ? [reputationWrite(projectId, emailId, { sent: 1 })] : []), // the reputation guard's denominator
    ...counted(email, 'sent'),
    ...(email.inbox_thread
      ? sentMessageIdWrites(projectId, email.inbox_thread, sent.message_id!, email.expires_at)
      : []),
  ]);
  countMetric('Sent');
  // only the invocation that committed `sent` gets here: it alone publishes what SES would have (never throws)
  if (!email.livemode) {
    await publishSimulatedFeedback(projectId, domain!.id, input, messageId);
    if (rendered) await deliverToSandbox(projectId, input, messageId, rendered); // recipients at the twin's own receiving domains
  }
  return 'sent';
}
