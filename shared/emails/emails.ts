/**
 * Emails: accepting them (POST /emails, /emails/batch), their lifecycle and reading them.
 *
 * Lifecycle (`last_event`): queued|scheduled -> sending -> sent -> delivered|bounced|... (SES
 * feedback), or -> failed (SES refused it for good; retry puts it back to queued), -> suppressed
 * (every recipient on the suppression list), scheduled -> canceled. Status only moves forward.
 *
 * Content once: an email's html, text, headers and attachments are stored once, apart from its
 * item (./content.ts), before the transaction that accepts it; the item holds the envelope and the
 * status, so every status change updates a small item and no event copies a body. Records expire
 * after EMAIL_RETENTION_DAYS (default 30, as Resend keeps logs) counted from when the email is
 * sent or scheduled; the content bucket's lifecycle outlives them.
 *
 * An email waiting for the sender carries a "due" entry on GSI1 (keys.emailDue). The API sends a
 * queue message right after the commit and gives the email a 2-minute lease; the due-email
 * dispatcher (functions/workers/dispatch-due-emails.ts) enqueues emails whose scheduled time or
 * lease has passed. So a Lambda dying between the commit and the enqueue delays an email, never
 * loses it, and a duplicate message is harmless: the sender claims the email with a condition.
 *
 * A waiting email is also listed under its From domain (keys.pendingEmailFrom), so deleting the
 * domain cancels it (cancelPendingEmailsFrom) without a Scan.
 *
 * A batch is all or nothing. One that fits a transaction is one transaction. A larger one (over
 * 33 emails, or over the transaction's bytes) is staged: its emails are written under another
 * prefix (keys.stagedEmail) that no reader sees, then ONE conditional write commits the batch
 * (keys.emailBatch, with the Idempotency-Key record), then the staged emails are published. A
 * request that dies before the commit leaves staged emails that the due-email dispatcher
 * discards after their lease (it marks the batch abandoned first, so a commit can no longer
 * happen); one that dies after it leaves them for the dispatcher, or a replay, to publish.
 */
import type { EmailRecord, SendEmailInput } from './model';
// the record types' old home, re-exported for the modules that still import them from here
export type { EmailRecord, EmailSummary } from './model';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import {
  batchGet,
  del,
  getItem,
  isConditionFailed,
  put,
  transact,
  transactionChunks,
  update,
  type Item,
  type WriteAction,
  transactRetryingConflicts,
} from '../platform/db/table';
import { findSendingDomain, sendingDomainProblems } from '../domains/domains';
import { ApiError, conflict, notFound, unprocessable, type ErrorDetail } from '../platform/errors';
import { eventWrite } from '../events/events';
import { newId } from '../platform/ids';
import { now as clockNow, nowDate } from '../platform/clock';
import { logger } from '../platform/log';
import { projectSettings } from '../project/settings';
import { quotaExceeded, quotaTag, quotaUsage, quotaWrites, type QuotaUsage } from '../project/quota';
import { sendingPaused } from './reputation';
import {
  IDEMPOTENCY_RACE,
  idempotencyWrite,
  previousResponse,
  replayOf,
  type IdempotencyRequest,
  type PreviousResponse,
} from './idempotency';
import { firstQueueOf } from './send-queue';
import { parseScheduledAt } from './schedule-phrase';
import { addressDomain, toRecord, toSummary } from './record';
import { contentTypeFor, filenameFromPath, pathProblem, putAttachments, type StoredAttachment } from './attachments';
import { contentBytes, getEmailContent, putEmailContents, renderedMessageKey, type EmailContent } from './content';
import { contentDisposition, presignGet } from '../platform/aws/s3';
import { emailExpiresAt } from './retention';
export { emailExpiresAt } from './retention';
import { pendingEmailDelete, pendingEmailWrite } from './pending';
import type { TemplateItem } from '../templates/model';
import { findTemplate, renderPublished } from '../templates/templates';

// the pending entries, the record shape and the stored item live in leaf modules (pending.ts, record.ts, item.ts); their users import them from here too
export { cancelPendingEmailsFrom, pendingEmailDelete, pendingEmailWrite } from './pending';
export { addressDomain, bareAddress, toRecord, toSummary } from './record';
export type { EmailItem } from './item';
import type { EmailItem } from './item';

/**
 * How long an enqueued email may wait before the dispatcher enqueues it again, and how long a
 * sender's claim (`sending`) lasts: far above the sender's 30 s Lambda timeout, so a claim this
 * old belongs to a sender that died (shared/emails/sender.ts ends it `failed`).
 */
export const SEND_LEASE_MS = 2 * 60 * 1000;
/** A batch record outlives its staged emails by far: the dispatcher settles them minutes after staging (a lease, far above the route's 10 s timeout). */
const BATCH_RECORD_TTL_SECONDS = 7 * 24 * 60 * 60;
/** Scheduling further ahead than this is refused (SES-backed providers allow up to 30 days). */
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;
/**
 * The largest content one email may have (html, text, headers and attachments as stored): POST
 * /emails cannot bring more than its 5 MB request, and a broadcast's personalised email is refused
 * past this. SES v2 takes messages up to 40 MB.
 */
export const MAX_EMAIL_CONTENT_BYTES = 10 * 1024 * 1024;

/** An email ready to be accepted: its item and its content. */
export interface PreparedEmail {
  item: EmailItem;
  content: EmailContent;
  /** the bytes of its `content` attachments, stored with the content */
  files?: { id: string; bytes: Buffer; content_type: string }[];
}

const list = (value: string | string[] | undefined): string[] =>
  value === undefined ? [] : Array.isArray(value) ? value : [value];

/** Checks what the schema cannot (the template, the sending domain, time window, size) and builds the item. */
type DomainLookup = (name: string) => ReturnType<typeof findSendingDomain>;
type TemplateLookup = (idOrAlias: string) => Promise<TemplateItem | undefined>;
type TopicLookup = (topicId: string) => Promise<Item | undefined>;

/**
 * With `template`, the content is the template's published version rendered with the request's
 * variables; from, subject and reply_to fall back to the template's (the schema lets the
 * request leave out from and subject only then).
 */
async function resolveContent(
  input: SendEmailInput,
  path: string[],
  lookupTemplate: TemplateLookup,
): Promise<SendEmailInput & { from: string; subject: string }> {
  let resolved = input;
  if (input.template) {
    const result = renderPublished(await lookupTemplate(input.template.id), input.template.variables ?? {}, [
      ...path,
      'template',
    ]);
    if ('problems' in result) throw unprocessable(result.problems);
    const { rendered } = result;
    resolved = {
      ...input,
      from: input.from ?? rendered.from ?? undefined,
      subject: input.subject ?? rendered.subject ?? undefined,
      reply_to: input.reply_to ?? rendered.reply_to ?? undefined,
      html: rendered.html,
      text: rendered.text ?? undefined,
    };
  }
  const { from, subject } = resolved;
  if (subject !== undefined && (subject.length < 1 || subject.length > 998)) {
    throw unprocessable([
      {
        code: 'invalid_subject',
        message: 'the rendered subject must be 1-998 characters',
        path: [...path, 'subject'].join('.'),
      },
    ]);
  }
  if (!resolved.html && !resolved.text) {
    throw unprocessable([
      {
        code: 'missing_content',
        message: 'html or text must have content (after rendering the template)',
        path: [...path, 'html'].join('.'),
      },
    ]);
  }
  if (from === undefined || subject === undefined) {
    const missing = (['from', 'subject'] as const).filter((field) => resolved[field] === undefined);
    throw unprocessable(
      missing.map((field) => ({
        code: 'invalid_type',
        message: `${field} is required: neither the request nor the template has one`,
        path: [...path, field].join('.'),
      })),
    );
  }
  return { ...resolved, from, subject };
}

async function prepare(
  caller: Caller,
  request: SendEmailInput,
  path: string[],
  lookupDomain: DomainLookup,
  lookupTemplate: TemplateLookup,
  lookupTopic: TopicLookup,
): Promise<PreparedEmail> {
  // The request's own `from` names the domain: read it while the template is read (one round trip, not two).
  // Its promise is kept by lookupDomain, so the read below reuses it; unawaited it must not reject unhandled.
  if (request.template && request.from) lookupDomain(addressDomain(request.from)).catch(() => undefined);
  // and the topic beside them
  const topic = request.topic_id ? lookupTopic(request.topic_id) : undefined;
  topic?.catch(() => undefined);
  const input = await resolveContent(request, path, lookupTemplate);
  const problems: ErrorDetail[] = [];
  const at = (field: string) => [...path, field].join('.');
  const fromDomain = addressDomain(input.from);
  const domain = await lookupDomain(fromDomain);
  problems.push(...sendingDomainProblems(caller, fromDomain, domain, at('from')));
  if (topic && !(await topic))
    problems.push({ code: 'not_found', message: `topic ${request.topic_id} not found`, path: at('topic_id') });
  const now = clockNow();
  let scheduledAt: string | null = null;
  const schedule = input.scheduled_at ? parseScheduledAt(input.scheduled_at, new Date(now)) : undefined; // a phrase counts from created_at
  if (schedule && 'error' in schedule) problems.push({ ...schedule.error, path: at('scheduled_at') });
  else if (schedule) {
    const time = Date.parse(schedule.iso);
    if (time - now > MAX_SCHEDULE_AHEAD_MS)
      problems.push({
        code: 'too_far_ahead',
        message: 'scheduled_at may be at most 30 days ahead',
        path: at('scheduled_at'),
      });
    if (time > now) scheduledAt = schedule.iso; // a time already past just sends now
  }
  // attachments: listed in the content with an id each; the bytes of `content` ones stored as objects of their own (./attachments.ts)
  const files: NonNullable<PreparedEmail['files']> = [];
  const attachments = (input.attachments ?? []).map((a, i): StoredAttachment => {
    const id = newId();
    const filename = a.filename ?? (a.path ? filenameFromPath(a.path) : null);
    const type = a.content_type ?? contentTypeFor(filename);
    const problem = a.path === undefined ? undefined : pathProblem(a.path);
    if (problem)
      problems.push({ code: 'invalid_attachment_path', message: `path ${problem}`, path: at(`attachments.${i}.path`) });
    if (a.path !== undefined)
      return { id, filename, content_type: type, content_id: a.content_id ?? null, size: null, path: a.path };
    const bytes = Buffer.from(a.content ?? '', 'base64');
    files.push({ id, bytes, content_type: type });
    return { id, filename, content_type: type, content_id: a.content_id ?? null, size: bytes.length };
  });
  if (problems.length) throw unprocessable(problems);
  const item: EmailItem = {
    object: 'email',
    id: newId(),
    project_id: caller.projectId,
    livemode: caller.livemode,
    message_id: null,
    from: input.from,
    to: list(input.to),
    cc: list(input.cc),
    bcc: list(input.bcc),
    reply_to: list(input.reply_to),
    subject: input.subject,
    tags: input.tags ?? [],
    last_event: scheduledAt ? 'scheduled' : 'queued',
    scheduled_at: scheduledAt,
    created_at: new Date(now).toISOString(),
    configuration_set: domain?.configuration_set,
    expires_at: emailExpiresAt(scheduledAt ?? now),
    ...(request.template ? { template_id: (await lookupTemplate(request.template.id))?.id as string } : {}),
    ...(request.topic_id ? { topic_id: request.topic_id } : {}),
    ...(attachments.some((a) => a.path !== undefined) ? { attachments_pending: true } : {}),
  };
  const content: EmailContent = {
    html: input.html ?? null,
    text: input.text ?? null,
    headers: input.headers ?? {},
    ...(attachments.length ? { attachments } : {}),
  };
  // their sizes, for the sender's memory budget (./sender-memory.ts)
  item.content_bytes = contentBytes(content);
  if (files.length) item.attachment_bytes = files.reduce((sum, f) => sum + f.bytes.length, 0);
  return { item, content, ...(files.length ? { files } : {}) };
}

/** `dueAt`: when the dispatcher should enqueue it again if it is still waiting (default: a send lease from now). */
export function emailWrites(
  caller: Pick<Caller, 'projectId' | 'livemode'>,
  item: EmailItem,
  dueAt?: string,
): WriteAction[] {
  const due = item.scheduled_at ?? dueAt ?? new Date(clockNow() + SEND_LEASE_MS).toISOString();
  return [
    put({
      ...keys.email(caller.projectId, item.id),
      ...keys.emailDue(caller.projectId, item.id, due),
      type: 'email',
      ...item,
    }),
    eventWrite(caller, item.scheduled_at ? 'email.scheduled' : 'email.queued', toSummary(item)),
  ];
}

/** An accepted email's writes: the email, its event, its pending entry. */
const ACCEPT_WRITES = 3;
const acceptWrites = (caller: Pick<Caller, 'projectId' | 'livemode'>, item: EmailItem): WriteAction[] => [
  ...emailWrites(caller, item),
  pendingEmailWrite(caller.projectId, item),
];
/** What an email weighs in a transaction: the item, its event (the same fields again) and its pending entry. */
export const emailTransactionBytes = (item: EmailItem): number => 2 * Buffer.byteLength(JSON.stringify(item)) + 2048;

/** Splits emails into groups that each fit one transaction of `writesPerEmail` actions per email (plus `reserved`). */
const transactionGroups = (items: EmailItem[], writesPerEmail: number, reserved = 0): EmailItem[][] =>
  transactionChunks(items, { actions: () => writesPerEmail, bytes: emailTransactionBytes, reserved });

/**
 * Puts the emails that are sent at once on their first queue: the send queue, or the fetch stage
 * for those with `path` attachments (./send-queue.ts `firstQueueOf`). After their commit: if this
 * fails, the dispatcher sends them when their lease runs out.
 */
async function enqueueImmediate(projectId: string, items: EmailItem[]): Promise<void> {
  const immediate = items.filter((item) => !item.scheduled_at);
  const byQueue = new Map<ReturnType<typeof firstQueueOf>, { project_id: string; email_id: string }[]>();
  for (const item of immediate)
    byQueue.set(firstQueueOf(item), [
      ...(byQueue.get(firstQueueOf(item)) ?? []),
      { project_id: projectId, email_id: item.id },
    ]);
  await Promise.all(
    [...byQueue].map(([queue, messages]) =>
      queue
        .enqueue(messages)
        .catch((error) =>
          logger.warn('enqueue failed; the due-email dispatcher will send them', { queue: queue.name, error }),
        ),
    ),
  );
}

/** The staged form of an email: not an email yet, found again by the dispatcher after the lease if the request dies. */
const stagedWrite = (projectId: string, batchId: string, item: EmailItem, staledAt: string): WriteAction =>
  put({
    ...keys.stagedEmail(projectId, item.id),
    ...keys.emailDue(projectId, item.id, staledAt),
    type: 'staged_email',
    project_id: projectId,
    id: item.id,
    batch_id: batchId,
    email: item,
  });

const batchRecord = (
  projectId: string,
  batchId: string,
  state: 'committed' | 'abandoned',
  emailIds: string[],
): WriteAction =>
  put(
    {
      ...keys.emailBatch(projectId, batchId),
      type: 'email_batch',
      project_id: projectId,
      state,
      email_ids: emailIds,
      expires_at: Math.floor(clockNow() / 1000) + BATCH_RECORD_TTL_SECONDS,
    },
    { ifAbsent: { tag: 'batch decided', withItem: true } },
  );

/**
 * Publishes staged emails of a committed batch: each staged item deleted (only if it is still
 * there: publishing twice writes nothing) and the email written as accepted. Returns the emails
 * this call published.
 */
async function publishStaged(projectId: string, emails: EmailItem[]): Promise<EmailItem[]> {
  const published: EmailItem[] = [];
  const writes = (item: EmailItem) => [
    del(keys.stagedEmail(projectId, item.id), { ifExists: { tag: 'published' } }),
    ...acceptWrites({ projectId, livemode: item.livemode }, item),
  ];
  // the groups are independent: written side by side (a batch is at most 5 MB, so a few transactions)
  await Promise.all(
    transactionGroups(emails, 1 + ACCEPT_WRITES).map(async (group) => {
      try {
        await transact(group.flatMap(writes));
        published.push(...group);
      } catch (error) {
        if (!isConditionFailed(error, 'published')) throw error;
        // another publisher (a replay, the dispatcher) got to some of them: one at a time
        for (const item of group) {
          try {
            await transact(writes(item));
            published.push(item);
          } catch (single) {
            if (!isConditionFailed(single, 'published')) throw single;
          }
        }
      }
    }),
  );
  return published;
}

/** A replay of a staged batch: publishes what is still staged, so every id it answers exists. */
async function completeReplay(projectId: string, replay: PreviousResponse): Promise<string[]> {
  if (replay.batch_id) {
    const staged = await batchGet(replay.email_ids.map((id) => keys.stagedEmail(projectId, id)));
    await enqueueImmediate(
      projectId,
      await publishStaged(
        projectId,
        staged.map((item) => item.email as EmailItem),
      ),
    );
  }
  return replay.email_ids;
}

/**
 * The dispatcher's handling of a staged email past its lease (the request that staged it is
 * over): published if its batch committed, deleted if not, after marking the batch abandoned
 * so that its commit can no longer happen. Returns what became of it.
 */
export async function settleStagedEmail(staged: Item): Promise<'published' | 'discarded'> {
  const projectId = staged.project_id as string;
  const email = staged.email as EmailItem;
  let batch = await getItem(keys.emailBatch(projectId, staged.batch_id));
  if (!batch) {
    try {
      await transact([batchRecord(projectId, staged.batch_id, 'abandoned', [])]);
      batch = { state: 'abandoned' };
    } catch (error) {
      if (!isConditionFailed(error, 'batch decided')) throw error;
      batch = error.item; // the commit won after all
    }
  }
  if (batch?.state === 'committed') {
    await enqueueImmediate(projectId, await publishStaged(projectId, [email]));
    return 'published';
  }
  await transact([del(keys.stagedEmail(projectId, email.id))]);
  return 'discarded';
}

/**
 * Accepts emails: validated first (all or nothing), written with their events, then enqueued.
 * Everything that can refuse an email is checked before the first write. The write is all or
 * nothing too: one transaction when the batch fits, else staged and committed by one write
 * (see the top of this file). An Idempotency-Key's record is written in the commit, so a
 * replay only ever answers ids of emails that were committed.
 */
export async function acceptEmails(
  caller: Caller,
  inputs: SendEmailInput[],
  options: {
    batch: boolean;
    idempotency?: IdempotencyRequest;
    permissive?: { indices: number[]; rejected: Rejected[] };
    /**
     * A single email's companions (an inbox's thread and message, shared/inboxes/outbound.ts): `fields` go on the
     * email item, `writes` into the transaction that accepts it, so the email and what refers to it exist together.
     */
    alongside?: { fields: Record<string, unknown>; writes: (item: EmailItem) => WriteAction[] };
  },
): Promise<Accepted> {
  // the usage after this request (its counters are in the accepting transaction): read beside the enqueue
  const usage = () => (caller.livemode ? quotaUsage(caller.projectId) : Promise.resolve(undefined));
  // permissive (x-batch-validation): the emails refused by the schema, and below by the send's own checks
  const rejected: Rejected[] = [...(options.permissive?.rejected ?? [])];
  const answer = async (ids: string[] | Promise<string[]>, enqueued?: Promise<void>): Promise<Accepted> => {
    const [done, used] = await Promise.all([ids, usage(), enqueued]); // the usage is read beside the enqueue: no round trip of its own
    return {
      ids: done,
      usage: used,
      ...(options.permissive ? { rejected: rejected.sort((a, b) => a.index - b.index) } : {}),
    };
  };
  if (options.idempotency) {
    const replay = await previousResponse(options.idempotency);
    if (replay) return answer(completeReplay(caller.projectId, replay));
  }
  // the project's quotas, as its rate limit read them for this request (no read of their own)
  const settings = caller.livemode ? await projectSettings(caller.projectId) : undefined;
  if (settings?.sending_paused) throw sendingPaused(settings.sending_paused); // the reputation guard's (./reputation.ts)
  const prepared: PreparedEmail[] = [];
  const problems: ErrorDetail[] = [];
  const domains = new Map<string, ReturnType<typeof findSendingDomain>>(); // a batch reads each sending domain once
  const lookupDomain: DomainLookup = (name) => {
    if (!domains.has(name)) domains.set(name, findSendingDomain(caller.projectId, name));
    return domains.get(name)!;
  };
  const templates = new Map<string, Promise<TemplateItem | undefined>>(); // and each template once
  const lookupTemplate: TemplateLookup = (idOrAlias) => {
    if (!templates.has(idOrAlias)) templates.set(idOrAlias, findTemplate(caller.projectId, idOrAlias));
    return templates.get(idOrAlias)!;
  };
  const topics = new Map<string, Promise<Item | undefined>>(); // and each topic once
  const lookupTopic: TopicLookup = (topicId) => {
    if (!topics.has(topicId)) topics.set(topicId, getItem(keys.topic(caller.projectId, topicId)));
    return topics.get(topicId)!;
  };
  for (const [index, input] of inputs.entries()) {
    const requestIndex = options.permissive?.indices[index] ?? index;
    try {
      prepared.push(
        await prepare(
          caller,
          input,
          options.batch ? [String(requestIndex)] : [],
          lookupDomain,
          lookupTemplate,
          lookupTopic,
        ),
      );
    } catch (error) {
      if (!(error instanceof ApiError && error.statusCode === 422 && Array.isArray(error.errors))) throw error;
      if (options.permissive) rejected.push({ index: requestIndex, message: error.message });
      else problems.push(...error.errors);
    }
  }
  if (problems.length) throw unprocessable(problems);
  if (!prepared.length) return answer([]); // permissive, and nothing valid: nothing is written
  if (options.alongside) {
    if (prepared.length !== 1) throw new Error('alongside writes go with exactly one email');
    Object.assign(prepared[0].item, options.alongside.fields);
  }
  const items = prepared.map((p) => p.item);
  const ids = items.map((item) => item.id);
  // The content first: a committed email always has its content (one whose commit fails leaves an object the lifecycle expires).
  await Promise.all([
    putEmailContents(
      caller.projectId,
      prepared.map((p) => ({ emailId: p.item.id, content: p.content })),
    ),
    ...prepared.map((p) => (p.files ? putAttachments(caller.projectId, p.item.id, p.files) : undefined)),
  ]);
  const idempotency = options.idempotency;
  const counted = settings ? quotaWrites(caller.projectId, items.length, settings) : [];
  const refused = (error: unknown): Promise<Accepted> => {
    for (const period of ['daily', 'monthly'] as const) {
      if (settings && isConditionFailed(error, quotaTag(period)))
        throw quotaExceeded(period, settings[`${period}_quota`] as number, Number(error.item?.n ?? 0), items.length);
    }
    if (!idempotency || !isConditionFailed(error, IDEMPOTENCY_RACE)) throw error;
    // an identical request committed first: answer with its emails (ours were never committed)
    const replay = replayOf(idempotency, error.item);
    if (!replay) throw error;
    return answer(completeReplay(caller.projectId, replay));
  };

  const groups = transactionGroups(items, ACCEPT_WRITES, (idempotency ? 1 : 0) + counted.length);
  if (groups.length === 1) {
    try {
      await transactRetryingConflicts([
        ...(idempotency ? [idempotencyWrite(idempotency, ids)] : []),
        ...counted,
        ...items.flatMap((item) => acceptWrites(caller, item)),
        ...(options.alongside ? options.alongside.writes(items[0]) : []),
      ]);
    } catch (error) {
      return refused(error);
    }
    return answer(ids, enqueueImmediate(caller.projectId, items));
  }

  if (options.alongside) throw new Error('an email with alongside writes must fit one transaction'); // one email always does
  const batchId = newId();
  const staledAt = new Date(clockNow() + SEND_LEASE_MS).toISOString();
  await Promise.all(
    transactionGroups(items, 1).map((group) =>
      transact(group.map((item) => stagedWrite(caller.projectId, batchId, item, staledAt))),
    ),
  );
  try {
    await transactRetryingConflicts([
      batchRecord(caller.projectId, batchId, 'committed', ids),
      ...(idempotency ? [idempotencyWrite(idempotency, ids, batchId)] : []),
      ...counted,
    ]);
  } catch (error) {
    return refused(error); // our staged emails are left for the dispatcher to discard
  }
  return answer(
    ids,
    publishStaged(caller.projectId, items).then((published) => enqueueImmediate(caller.projectId, published)),
  );
}

/** An email a permissive batch left out: its index in the request, and why. */
export interface Rejected {
  index: number;
  message: string;
}

/** What acceptEmails answers: the emails' ids, the project's quota usage after them (live keys only), and a permissive batch's left-out emails. */
export interface Accepted {
  ids: string[];
  usage?: QuotaUsage;
  rejected?: Rejected[];
}

/** The item, unless it is past its retention (DynamoDB's TTL deletes expired items within days, not at once). */
export const unexpired = (item: Item | undefined): Item | undefined =>
  item && !(typeof item.expires_at === 'number' && item.expires_at * 1000 <= clockNow()) ? item : undefined;

/**
 * The email with its content: the item and the content object are read side by side. A test-mode
 * email also gets `raw`, a download URL of the message it would have sent, stored by the sender
 * with `sent` (./test-mode-send.ts): null before it was.
 */
export async function getEmail(caller: Caller, emailId: string): Promise<EmailRecord> {
  const [item, content] = await Promise.all([
    getItem(keys.email(caller.projectId, emailId)),
    getEmailContent(caller.projectId, emailId),
  ]);
  if (!unexpired(item)) throw notFound('Email', 'email_id');
  if (item!.livemode !== false) return toRecord(item!, content);
  const raw = item!.message_id
    ? await presignGet(renderedMessageKey(caller.projectId, emailId), {
        bucket: 'content',
        contentType: 'message/rfc822',
        contentDisposition: contentDisposition('attachment', `${emailId}.eml`),
      })
    : null;
  return toRecord(item!, content, raw);
}

const notScheduled = (what: string) => () => conflict('email_not_scheduled', `Only a scheduled email can be ${what}`);

/** Moves a scheduled email to a new time (the dispatcher sends it then); `scheduledAt` is ISO 8601 or a phrase (./schedule-phrase.ts). */
export async function rescheduleEmail(caller: Caller, emailId: string, scheduledAt: string): Promise<void> {
  const schedule = parseScheduledAt(scheduledAt, nowDate());
  if ('error' in schedule) throw unprocessable([{ ...schedule.error, path: 'scheduled_at' }]);
  const time = Date.parse(schedule.iso);
  if (time - clockNow() > MAX_SCHEDULE_AHEAD_MS)
    throw unprocessable([
      { code: 'too_far_ahead', message: 'scheduled_at may be at most 30 days ahead', path: 'scheduled_at' },
    ]);
  const existing = await getItem(keys.email(caller.projectId, emailId));
  if (!existing) throw notFound('Email', 'email_id');
  const at = new Date(Math.max(time, clockNow())).toISOString();
  await transact([
    update(
      keys.email(caller.projectId, emailId),
      {
        set: { scheduled_at: at, ...keys.emailDue(caller.projectId, emailId, at) },
        condition: { expression: 'last_event = :scheduled', values: { ':scheduled': 'scheduled' } },
      },
      notScheduled('rescheduled'),
    ),
  ]);
}

export async function cancelEmail(caller: Caller, emailId: string): Promise<void> {
  const existing = await getItem(keys.email(caller.projectId, emailId));
  if (!existing) throw notFound('Email', 'email_id');
  await transact([
    update(
      keys.email(caller.projectId, emailId),
      {
        set: { last_event: 'canceled' },
        remove: ['GSI1PK', 'GSI1SK'],
        condition: { expression: 'last_event = :scheduled', values: { ':scheduled': 'scheduled' } },
      },
      notScheduled('canceled'),
    ),
    eventWrite(caller, 'email.canceled', { ...toSummary(existing), last_event: 'canceled' }),
    pendingEmailDelete(caller.projectId, existing as EmailItem),
  ]);
}

/** Retry: only a failed email goes back to queued; the contract makes `errors` an object here. */
export async function retryEmail(caller: Caller, emailId: string): Promise<EmailRecord> {
  const [found, content] = await Promise.all([
    getItem(keys.email(caller.projectId, emailId)),
    getEmailContent(caller.projectId, emailId),
  ]);
  const existing = unexpired(found);
  if (!existing) {
    throw new ApiError(404, 'not_found', 'Email not found', { code: 'not_found', email_id: emailId });
  }
  const notRetryable = (lastEvent: string) =>
    new ApiError(409, 'application_error', `Only a failed email can be retried; this one is ${lastEvent}`, {
      code: 'email_not_retryable',
      last_event: lastEvent,
    });
  if (existing.last_event !== 'failed') throw notRetryable(existing.last_event);
  if (!content)
    throw conflict(
      'email_content_expired',
      'The content of this email is no longer stored (past its retention): it cannot be sent again',
    );
  const record: EmailRecord = { ...toRecord(existing, content), last_event: 'queued' };
  await transact([
    update(
      keys.email(caller.projectId, emailId),
      {
        set: {
          last_event: 'queued',
          ...keys.emailDue(caller.projectId, emailId, new Date(clockNow() + SEND_LEASE_MS).toISOString()),
        },
        remove: ['failure_reason', 'send_attempts', 'fetching_until'], // a retry gets the sender's attempts (and the fetch stage's claim) afresh
        condition: { expression: 'last_event = :failed', values: { ':failed': 'failed' } },
      },
      () => notRetryable('no longer failed'),
    ),
    eventWrite(caller, 'email.queued', { ...toSummary(existing), last_event: 'queued' }),
    pendingEmailWrite(caller.projectId, existing as EmailItem),
  ]);
  // a failed fetch keeps `attachments_pending`: the retry fetches again (./attachment-fetch.ts)
  await firstQueueOf(existing as EmailItem)
    .enqueue([{ project_id: caller.projectId, email_id: emailId }])
    .catch((error) => logger.warn('enqueue failed; the due-email dispatcher will send it', { error }));
  return record;
}
