/**
 * Inbound mail: what the inbound worker does with one SES receipt notification.
 *
 * SES (a receipt rule of lib/inbound.ts) stores the raw message in the inbound bucket, then
 * publishes a `Received` notification to the inbound topic, which SNS delivers to the inbound
 * queue; the local runtime's SMTP server does the same (local/aws/smtp-inbound.ts). For each
 * notification:
 *
 * 1. The envelope recipients are grouped by domain; a domain counts when a project owns it
 *    (the deployment-wide name claim of shared/domains/domains.ts), it is `verified` (SES receives
 *    only for verified identities; a name anyone can claim must not bring its mail to a project
 *    that never proved it holds the DNS) and has `capabilities.receiving` enabled. Recipients of
 *    other domains are dropped and logged, never attributed to a project; when nobody takes the
 *    message, its raw object is deleted too.
 * 2. The raw message is read from the bucket and parsed (shared/receiving/mime.ts); one larger
 *    than MAX_PARSE_BYTES is recorded from the headers in SES's notification, without bodies.
 * 3. Per project (one message can reach several): the received email, its idempotency item
 *    (keys.inboundMessage: SES message id + project, attribute_not_exists) and `email.received`
 *    in ONE transaction. A body too large for the item goes to the bucket first.
 * 4. The attachments go to the bucket, the raw message is checked readable, then `stored_at`
 *    (conditional: only once) and `email.stored` in one transaction.
 * 5. `afterStore`, per project: what a later feature does with the stored email (the inbound worker
 *    files it into the project's inboxes: shared/inboxes/filing.ts); `moreTakers` adds projects
 *    step 1 cannot know (an inbox's forwarding address, on the deployment's own domain).
 * 6. `reports`: recipients that are not a project's mail but a feature's input (a domain's DMARC or
 *    TLS report address, on the deployment's reports domain: shared/deliverability/ingest.ts). They
 *    are not dropped; the parsed message goes to `reports.ingest` before the projects' steps, and
 *    when no project takes the message its raw object is deleted after.
 *
 * Test mode (shared/project/test-mode.ts): a test send to an address at a receiving-enabled domain of
 * its own test twin is filed through this same path (shared/emails/test-mode-send.ts puts the rendered
 * message in the bucket and the notification on the queue). Its notification names the twin
 * (`test_project_id`, a field SES never sends; only SES's receipt rule and our sender write to the
 * queue), and step 1 then looks the domains up among the twin's test domains (their claims are the
 * twin's own), never the deployment-wide names: outside mail never reaches a test domain.
 *
 * A redelivered notification finds the idempotency item and only finishes step 4 if it had not
 * been done, so nothing is stored or emitted twice. A notification that cannot be read, or whose
 * raw message is missing, throws: the worker reports it as a batch item failure, SQS retries it
 * and then moves it to the inbound DLQ (with its alarm).
 */
import { metricsWrite } from '../emails/metrics';
import * as keys from '../platform/db/keys';
import { batchGet, getItem, isConditionFailed, put, transact, update, type Item } from '../platform/db/table';
import { eventWrite } from '../events/events';
import { newId, nowIso } from '../platform/ids';
import { bucketName, deleteObject, getObject, headObject, putObject } from '../platform/aws/s3';
import { messageFromSesHeaders, parseMessage, type ParsedMessage } from './mime';
import { logger } from '../platform/log';
import {
  MalformedSesNotification,
  type SesNotification,
  type SesReceiptDetail,
  sesMessageOf,
  sesNotificationFrom,
} from '../platform/aws/ses-notification';
import type { Verdict } from './model';
import { attachmentKey, bodyKey, retentionDays, toSummary } from './received-emails';
import { isTestProject } from '../project/test-mode';

/**
 * SES accepts messages up to 40 MB, and the worker parses all of them: one message per invocation,
 * with INBOUND_WORKER_MEMORY_MB (functions/workers.ts) for the raw message, its parse and the
 * uploads. Measured (bench/inbound-memory.ts): a 40 MB message peaks at 300-800 MB over the
 * process (7.5x its size for one large attachment, 17.5x for 40 MB of text bodies, held as strings),
 * parsed in 0.4-1.5 s of CPU; so the whole message in memory fits 2,048 MB with room for the
 * uploads, and a streaming parse (postal-mime has none; the attachments would go to S3 in parts)
 * is not needed at SES's size limit. A larger
 * message (SES and the local SMTP refuse one) would be recorded from the headers in SES's
 * notification, without bodies or attachments, and its raw download would still be there.
 */
export const MAX_PARSE_BYTES = 40 * 1024 * 1024;
/** Bodies and headers up to this size (as JSON) live in the item (DynamoDB's limit is 400 KB); larger ones in the bucket. */
export const INLINE_BODY_BYTES = 256 * 1024;
export class MalformedReceipt extends Error {
  override name = 'MalformedReceipt';
}

/** The SES receipt notification (`notificationType: "Received"`, S3 action), as far as the worker reads it. */
export type SesReceipt = SesNotification & {
  notificationType: 'Received';
  receipt: SesReceiptDetail & { action: { type: 'S3'; objectKey: string } };
  /** a test-mode send's loopback (the module comment): the test twin whose test domains receive it */
  test_project_id?: string;
};

/** The notification in an SQS message body: inside an SNS envelope (or bare, with raw message delivery). Other notification types: undefined. */
export function receiptFromBody(body: string): SesReceipt | undefined {
  let notification: SesNotification;
  try {
    const message = sesMessageOf(body);
    const type =
      message && typeof message === 'object' ? (message as { notificationType?: unknown }).notificationType : undefined;
    if (typeof type !== 'string') throw new MalformedSesNotification('not an SES notification');
    if (type !== 'Received') return undefined; // e.g. SES's own setup notification
    notification = sesNotificationFrom(message);
  } catch (error) {
    if (!(error instanceof MalformedSesNotification)) throw error;
    throw new MalformedReceipt(error.message, { cause: error.cause ?? error });
  }
  if (!/^[\w.-]{1,200}$/.test(notification.mail.messageId)) throw new MalformedReceipt('no usable mail.messageId');
  const action = notification.receipt!.action; // a Received notification has its receipt (sesNotificationFrom)
  if (action.type !== 'S3' || typeof action.objectKey !== 'string')
    throw new MalformedReceipt('not the notification of an S3 action');
  if (action.bucketName !== undefined && action.bucketName !== bucketName())
    throw new MalformedReceipt(`the message is in bucket ${action.bucketName}, not the inbound bucket`);
  return notification as SesReceipt;
}

const verdict = (value: { status?: string } | undefined): Verdict | null => {
  const status = value?.status?.toLowerCase();
  return status === 'pass' ||
    status === 'fail' ||
    status === 'gray' ||
    status === 'processing_failed' ||
    status === 'disabled'
    ? status
    : null;
};

const domainOf = (address: string) =>
  address
    .slice(address.lastIndexOf('@') + 1)
    .trim()
    .toLowerCase();

export interface Taker {
  projectId: string;
  livemode: boolean;
  recipients: string[];
  /** inboxes named by their forwarding address (shared/inboxes/filing.ts) */
  inboxIds?: string[];
}

/** The projects that receive mail for these recipients: active name claim + verified domain with receiving enabled (two BatchGets). */
async function receivingProjects(recipients: string[], testProjectId?: string): Promise<Map<string, Taker>> {
  const byDomain = new Map<string, string[]>();
  for (const recipient of recipients) {
    const domain = domainOf(recipient);
    if (!domain || !recipient.includes('@')) continue;
    byDomain.set(domain, [...(byDomain.get(domain) ?? []), recipient]);
  }
  const takers = new Map<string, Taker>();
  if (byDomain.size === 0) return takers;
  // The name claim (shared/domains/domains.ts) says which project owns the name; the domain says whether it receives.
  // a test-mode loopback looks among the twin's test domains only (their claims are the twin's: shared/domains/domains.ts)
  const claimKey = (domain: string) =>
    testProjectId ? keys.testDomainName(testProjectId, domain) : keys.domainName(domain);
  const claims = (await batchGet(Array.from(byDomain.keys(), claimKey))).filter(
    (c) => c.state === 'active' && (!testProjectId || c.project_id === testProjectId),
  );
  if (claims.length === 0) return takers;
  const domains = await batchGet(claims.map((c) => keys.domain(c.project_id, c.domain_id)));
  for (const domain of domains) {
    if (domain.capabilities?.receiving !== 'enabled' || domain.status !== 'verified') continue;
    const taker: Taker = takers.get(domain.project_id) ?? {
      projectId: domain.project_id,
      livemode: domain.livemode !== false,
      recipients: [],
    };
    taker.recipients.push(...(byDomain.get(String(domain.name).toLowerCase()) ?? []));
    takers.set(domain.project_id, taker);
  }
  return takers;
}

async function readMessage(
  receipt: SesReceipt,
  maxParseBytes: number,
): Promise<{ message: ParsedMessage; rawSize: number }> {
  const key = receipt.receipt.action.objectKey;
  const head = await headObject(key);
  if (!head) throw new Error(`raw message ${key} is not in the inbound bucket`);
  const envelopeFrom = receipt.mail.source ?? '';
  if (head.size > maxParseBytes) {
    logger.warn('inbound message too large to parse: recorded from its headers', {
      ses_message_id: receipt.mail.messageId,
      size: head.size,
      max: maxParseBytes,
    });
    return { message: messageFromSesHeaders(receipt.mail, envelopeFrom), rawSize: head.size };
  }
  const raw = await getObject(key);
  if (!raw) throw new Error(`raw message ${key} is not in the inbound bucket`);
  try {
    return { message: await parseMessage(raw, envelopeFrom), rawSize: raw.length };
  } catch (error) {
    logger.warn('inbound message not parseable: recorded from its headers', {
      ses_message_id: receipt.mail.messageId,
      error,
    });
    return { message: messageFromSesHeaders(receipt.mail, envelopeFrom), rawSize: raw.length };
  }
}

const jsonBytes = (value: unknown) => Buffer.byteLength(JSON.stringify(value), 'utf8');

/** Step 3: the record, its idempotency item and `email.received`; returns the record as stored (or as found). */
async function recordOnce(receipt: SesReceipt, taker: Taker, message: ParsedMessage, rawSize: number): Promise<Item> {
  const sesMessageId = receipt.mail.messageId;
  const idempotencyKey = keys.inboundMessage(sesMessageId, taker.projectId);
  const existing = await getItem(idempotencyKey);
  if (existing) return recordOf(taker, sesMessageId, existing);
  const id = newId();
  const createdAt = nowIso();
  const expiresAt = Math.floor(Date.parse(createdAt) / 1000) + retentionDays() * 24 * 60 * 60;
  const body = { headers: message.headers, text: message.text, html: message.html };
  const inline = jsonBytes(body) <= INLINE_BODY_BYTES;
  if (!inline)
    await putObject(bodyKey(taker.projectId, id), Buffer.from(JSON.stringify(body), 'utf8'), 'application/json');
  const item: Item = {
    ...keys.receivedEmail(taker.projectId, id),
    type: 'received_email',
    project_id: taker.projectId,
    id,
    ses_message_id: sesMessageId,
    from: message.from,
    to: message.to,
    cc: message.cc,
    bcc: message.bcc,
    reply_to: message.reply_to,
    received_for: taker.recipients,
    subject: message.subject,
    message_id: message.message_id,
    ...(inline ? body : { body_key: bodyKey(taker.projectId, id) }),
    attachments: message.attachments.map((a) => ({
      id: newId(),
      filename: a.filename,
      size: a.content.byteLength,
      content_type: a.content_type,
      content_disposition: a.content_disposition,
      content_id: a.content_id,
    })),
    raw_key: receipt.receipt.action.objectKey,
    raw_size: rawSize,
    spam_verdict: verdict(receipt.receipt.spamVerdict),
    virus_verdict: verdict(receipt.receipt.virusVerdict),
    created_at: createdAt,
    expires_at: expiresAt,
  };
  const caller = { projectId: taker.projectId, livemode: taker.livemode };
  try {
    await transact([
      put(
        {
          ...idempotencyKey,
          type: 'inbound_message',
          project_id: taker.projectId,
          ses_message_id: sesMessageId,
          received_email_id: id,
          expires_at: expiresAt,
        },
        { ifAbsent: { tag: 'duplicate receipt', withItem: true } },
      ),
      put(item, { ifAbsent: () => new Error(`received email id ${id} exists`) }),
      eventWrite(caller, 'email.received', toSummary(item)),
      ...(taker.livemode ? [metricsWrite(taker.projectId, id, { received: 1 })] : []), // GET /emails/metrics, GET /usage
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'duplicate receipt')) return recordOf(taker, sesMessageId, error.item); // a concurrent delivery won: finish its record
    throw error;
  }
  return item;
}

/** The record an earlier delivery of the message wrote, from its idempotency item. */
async function recordOf(taker: Taker, sesMessageId: string, idempotency: Item | undefined): Promise<Item> {
  const record = idempotency && (await getItem(keys.receivedEmail(taker.projectId, idempotency.received_email_id)));
  if (record) return record;
  throw new Error(`received email ${idempotency?.received_email_id} of SES message ${sesMessageId} is gone`);
}

/** Step 4: attachments into the bucket, the raw message readable, then `stored_at` and `email.stored` once. */
async function storeOnce(taker: Taker, record: Item, message: ParsedMessage): Promise<boolean> {
  if (record.stored_at) return false;
  const metas = record.attachments as { id: string; content_type: string }[];
  // The parse is deterministic, so a redelivery maps the same parts to the ids the record has.
  if (metas.length > message.attachments.length)
    throw new Error(
      `received email ${record.id} has ${metas.length} attachments, the message now ${message.attachments.length}`,
    );
  await Promise.all(
    metas.map((meta, i) =>
      putObject(attachmentKey(taker.projectId, record.id, meta.id), message.attachments[i].content, meta.content_type),
    ),
  );
  if (!(await headObject(record.raw_key))) throw new Error(`raw message ${record.raw_key} is not readable`);
  const storedAt = nowIso();
  try {
    await transact([
      update(
        keys.receivedEmail(taker.projectId, record.id),
        {
          set: { stored_at: storedAt },
          condition: {
            expression: 'attribute_exists(PK) AND attribute_not_exists(#stored)',
            names: { '#stored': 'stored_at' },
          },
        },
        { tag: 'already stored' },
      ),
      eventWrite({ projectId: taker.projectId, livemode: taker.livemode }, 'email.stored', toSummary(record)),
    ]);
  } catch (error) {
    if (isConditionFailed(error, 'already stored')) return false;
    throw error;
  }
  return true;
}

export interface InboundOutcome {
  ses_message_id: string;
  /** received emails written or finished by this call */
  stored: { project_id: string; received_email_id: string; new: boolean }[];
  /** recipients of no verified, receiving-enabled domain */
  dropped: string[];
  /** recipients handed to `reports` (step 6) */
  reports?: string[];
}

/** Handles one SQS message body (see the module comment). Throws MalformedReceipt for what can never be handled. */
export async function receiveInbound(
  body: string,
  options: {
    maxParseBytes?: number;
    /** projects that take some of the recipients though no domain of theirs names them (step 5) */
    moreTakers?: (recipients: string[]) => Promise<Map<string, Taker>>;
    /** after a project's record is stored (step 5); a failure fails the message, whose redelivery comes here again */
    afterStore?: (taker: Taker, record: Item, message: ParsedMessage) => Promise<unknown>;
    /** recipients whose mail a feature reads instead of a project keeping it (step 6); `ingest` must be idempotent */
    reports?: {
      recipientsOf: (recipients: string[]) => string[];
      ingest: (message: ParsedMessage, recipients: string[], sesMessageId: string) => Promise<unknown>;
    };
  } = {},
): Promise<InboundOutcome | undefined> {
  const receipt = receiptFromBody(body);
  if (!receipt) return undefined;
  const sesMessageId = receipt.mail.messageId;
  const sandbox =
    typeof receipt.test_project_id === 'string' && isTestProject(receipt.test_project_id)
      ? receipt.test_project_id
      : undefined;
  const takers = await receivingProjects(receipt.receipt.recipients, sandbox);
  if (!sandbox && options.moreTakers)
    for (const [projectId, forwarded] of await options.moreTakers(receipt.receipt.recipients)) {
      const taker = takers.get(projectId);
      if (taker) {
        taker.recipients.push(...forwarded.recipients);
        taker.inboxIds = forwarded.inboxIds;
      } else takers.set(projectId, forwarded);
    }
  const reports = (!sandbox && options.reports?.recipientsOf(receipt.receipt.recipients)) || [];
  const taken = new Set([...[...takers.values()].flatMap((t) => t.recipients), ...reports]);
  const dropped = receipt.receipt.recipients.filter((r) => !taken.has(r));
  if (dropped.length > 0)
    logger.warn('inbound mail dropped: no project receives for these recipients', {
      ses_message_id: sesMessageId,
      recipients: dropped,
    });
  if (takers.size === 0 && reports.length === 0) {
    await deleteObject(receipt.receipt.action.objectKey); // nobody's mail: not kept
    return { ses_message_id: sesMessageId, stored: [], dropped };
  }
  const { message, rawSize } = await readMessage(receipt, options.maxParseBytes ?? MAX_PARSE_BYTES);
  if (reports.length > 0) {
    await options.reports!.ingest(message, reports, sesMessageId);
    if (takers.size === 0) {
      await deleteObject(receipt.receipt.action.objectKey); // read, not kept
      return { ses_message_id: sesMessageId, stored: [], dropped, reports };
    }
  }
  const stored: InboundOutcome['stored'] = [];
  for (const taker of takers.values()) {
    const record = await recordOnce(receipt, taker, message, rawSize);
    const isNew = await storeOnce(taker, record, message);
    await options.afterStore?.(taker, record, message);
    stored.push({ project_id: taker.projectId, received_email_id: record.id, new: isNew });
  }
  return { ses_message_id: sesMessageId, stored, dropped };
}
