/**
 * Emails: accepting them (POST /emails, /emails/batch), their lifecycle and reading them.
 *
 * Lifecycle (`last_event`): queued|scheduled -> sending -> sent -> delivered|bounced|... (SES
 * feedback), or -> failed (SES refused it for good; retry puts it back to queued), -> suppressed
 * (every recipient on the suppression list), scheduled -> canceled. Status only moves forward.
 *
 * An email waiting for the sender carries a "due" entry on GSI1 (keys.emailDue). The API sends a
 * queue message right after the commit and gives the email a 2-minute lease; the due-email
 * dispatcher (functions/workers/dispatch-due-emails.ts) enqueues emails whose scheduled time or
 * lease has passed. So a Lambda dying between the commit and the enqueue delays an email, never
 * loses it, and a duplicate message is harmless: the sender claims the email with a condition.
 */
import type { SendEmailInput } from './operations';
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, isConditionFailed, put, queryPage, transact, update, type Item, type PageRequest, type WriteAction } from '../platform/db/table';
import { findSendingDomain, sendingDomainProblems } from '../domains/domains';
import { ApiError, conflict, notFound, unprocessable, type ErrorDetail } from '../platform/errors';
import { eventWrite } from '../events/events';
import { newId } from '../platform/ids';
import { logger } from '../platform/log';
import { IDEMPOTENCY_RACE, idempotencyWrite, previousResponse, replayOf, type IdempotencyRequest } from './idempotency';
import { sendQueue } from './send-queue';
import type { TemplateItem } from '../templates/model';
import { findTemplate, renderPublished } from '../templates/templates';

/** How long an enqueued email may wait before the dispatcher enqueues it again. */
export const SEND_LEASE_MS = 2 * 60 * 1000;
/** Scheduling further ahead than this is refused (SES-backed providers allow up to 30 days). */
export const MAX_SCHEDULE_AHEAD_MS = 30 * 24 * 60 * 60 * 1000;
/** Items stay well under DynamoDB's 400 KB item limit; bigger emails would need S3 (not yet). */
export const MAX_EMAIL_ITEM_BYTES = 350 * 1024;

export type LastEvent = 'queued' | 'scheduled' | 'sending' | 'sent' | 'delivered' | 'delivery_delayed' | 'bounced' | 'complained' | 'opened' | 'clicked' | 'failed' | 'canceled' | 'suppressed';

export interface EmailRecord {
  object: 'email';
  id: string;
  message_id: string | null;
  from: string;
  to: string[];
  cc: string[];
  bcc: string[];
  reply_to: string[];
  subject: string;
  html: string | null;
  text: string | null;
  headers: Record<string, string>;
  tags: { name: string; value: string }[];
  last_event: LastEvent;
  scheduled_at: string | null;
  created_at: string;
  /** only on the emails of a broadcast (shared/broadcasts/fanout.ts) */
  broadcast_id?: string;
}

export interface EmailItem extends EmailRecord {
  project_id: string;
  livemode: boolean;
  attachments?: { filename: string; content: string; content_type?: string }[];
  configuration_set?: string;
  failure_reason?: string;
}

const list = (value: string | string[] | undefined): string[] => (value === undefined ? [] : Array.isArray(value) ? value : [value]);

/** The bare address of `Name <addr>`, lower-cased (suppression and domain checks compare these). */
export function bareAddress(address: string): string {
  const match = /<([^>]+)>\s*$/.exec(address);
  return (match ? match[1] : address).trim().toLowerCase();
}

/** The domain part of a From address (`Name <a@b.example>` -> `b.example`): the sending domain it must belong to. */
export function addressDomain(address: string): string {
  return bareAddress(address).split('@')[1];
}

export function toRecord(item: Item): EmailRecord {
  const e = item as EmailItem;
  return {
    object: 'email',
    id: e.id,
    message_id: e.message_id ?? null,
    from: e.from,
    to: e.to,
    cc: e.cc ?? [],
    bcc: e.bcc ?? [],
    reply_to: e.reply_to ?? [],
    subject: e.subject,
    html: e.html ?? null,
    text: e.text ?? null,
    headers: e.headers ?? {},
    tags: e.tags ?? [],
    last_event: e.last_event,
    scheduled_at: e.scheduled_at ?? null,
    created_at: e.created_at,
    ...(e.broadcast_id ? { broadcast_id: e.broadcast_id } : {}),
  };
}

/** Checks what the schema cannot (the template, the sending domain, time window, size) and builds the item. */
type DomainLookup = (name: string) => ReturnType<typeof findSendingDomain>;
type TemplateLookup = (idOrAlias: string) => Promise<TemplateItem | undefined>;

/**
 * With `template`, the content is the template's published version rendered with the request's
 * variables; from, subject and reply_to fall back to the template's (the schema lets the
 * request leave out from and subject only then).
 */
async function resolveContent(input: SendEmailInput, path: string[], lookupTemplate: TemplateLookup): Promise<SendEmailInput & { from: string; subject: string }> {
  let resolved = input;
  if (input.template) {
    const result = renderPublished(await lookupTemplate(input.template.id), input.template.variables ?? {}, [...path, 'template']);
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
    throw unprocessable([{ code: 'invalid_subject', message: 'the rendered subject must be 1-998 characters', path: [...path, 'subject'].join('.') }]);
  }
  if (from === undefined || subject === undefined) {
    const missing = (['from', 'subject'] as const).filter((field) => resolved[field] === undefined);
    throw unprocessable(missing.map((field) => ({ code: 'invalid_type', message: `${field} is required: neither the request nor the template has one`, path: [...path, field].join('.') })));
  }
  return { ...resolved, from, subject };
}

async function prepare(caller: Caller, request: SendEmailInput, path: string[], lookupDomain: DomainLookup, lookupTemplate: TemplateLookup): Promise<EmailItem> {
  // The request's own `from` names the domain: read it while the template is read (one round trip, not two).
  // Its promise is kept by lookupDomain, so the read below reuses it; unawaited it must not reject unhandled.
  if (request.template && request.from) lookupDomain(addressDomain(request.from)).catch(() => undefined);
  const input = await resolveContent(request, path, lookupTemplate);
  const problems: ErrorDetail[] = [];
  const at = (field: string) => [...path, field].join('.');
  const fromDomain = addressDomain(input.from);
  const domain = await lookupDomain(fromDomain);
  problems.push(...sendingDomainProblems(caller, fromDomain, domain, at('from')));
  const now = Date.now();
  let scheduledAt: string | null = null;
  if (input.scheduled_at) {
    const time = Date.parse(input.scheduled_at);
    if (time - now > MAX_SCHEDULE_AHEAD_MS) problems.push({ code: 'too_far_ahead', message: 'scheduled_at may be at most 30 days ahead', path: at('scheduled_at') });
    if (time > now) scheduledAt = new Date(time).toISOString(); // a time already past just sends now
  }
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
    html: input.html ?? null,
    text: input.text ?? null,
    headers: input.headers ?? {},
    tags: input.tags ?? [],
    last_event: scheduledAt ? 'scheduled' : 'queued',
    scheduled_at: scheduledAt,
    created_at: new Date(now).toISOString(),
    configuration_set: domain?.configuration_set,
    ...(input.attachments?.length ? { attachments: input.attachments } : {}),
  };
  if (Buffer.byteLength(JSON.stringify(item)) > MAX_EMAIL_ITEM_BYTES) {
    throw new ApiError(413, 'validation_error', `An email may be at most ${MAX_EMAIL_ITEM_BYTES / 1024} KB with its attachments`, [
      { code: 'email_too_large', message: `at most ${MAX_EMAIL_ITEM_BYTES / 1024} KB with attachments`, path: path.join('.') },
    ]);
  }
  return item;
}

/** `dueAt`: when the dispatcher should enqueue it again if it is still waiting (default: a send lease from now). */
export function emailWrites(caller: Caller, item: EmailItem, dueAt?: string): WriteAction[] {
  const due = item.scheduled_at ?? dueAt ?? new Date(Date.now() + SEND_LEASE_MS).toISOString();
  return [
    put({ ...keys.email(caller.projectId, item.id), ...keys.emailDue(caller.projectId, item.id, due), type: 'email', ...item }),
    eventWrite(caller, item.scheduled_at ? 'email.scheduled' : 'email.queued', toRecord(item)),
  ];
}

/**
 * Accepts emails: validated first (all or nothing), written with their events, then enqueued.
 * A batch of up to 100 needs 200 writes, over DynamoDB's 100 per transaction, so it is written
 * in transactions of 49 emails, the idempotency record in the first. Everything that can refuse
 * an email is checked before the first write; only an outage between two transactions could
 * leave part of a batch written (the client's retry with the same key replays those ids).
 */
export async function acceptEmails(caller: Caller, inputs: SendEmailInput[], options: { batch: boolean; idempotency?: IdempotencyRequest }): Promise<string[]> {
  if (options.idempotency) {
    const replay = await previousResponse(options.idempotency);
    if (replay) return replay;
  }
  const items: EmailItem[] = [];
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
  for (const [index, input] of inputs.entries()) {
    try {
      items.push(await prepare(caller, input, options.batch ? [String(index)] : [], lookupDomain, lookupTemplate));
    } catch (error) {
      if (error instanceof ApiError && error.statusCode === 422 && Array.isArray(error.errors)) problems.push(...error.errors);
      else throw error;
    }
  }
  if (problems.length) throw unprocessable(problems);
  const ids = items.map((item) => item.id);
  const perTransaction = 49;
  for (let i = 0; i < items.length; i += perTransaction) {
    const writes = items.slice(i, i + perTransaction).flatMap((item) => emailWrites(caller, item));
    const first = i === 0 && options.idempotency ? [idempotencyWrite(options.idempotency, ids)] : [];
    try {
      await transact([...first, ...writes]);
    } catch (error) {
      if (!isConditionFailed(error, IDEMPOTENCY_RACE)) throw error;
      return replayOf(options.idempotency!, error.item) ?? ids; // an identical request won the race
    }
  }
  const immediate = items.filter((item) => !item.scheduled_at).map((item) => ({ project_id: caller.projectId, email_id: item.id }));
  if (immediate.length) {
    // After the commit: if this fails, the dispatcher sends them when their lease runs out.
    await sendQueue.enqueue(immediate).catch((error) => logger.warn('enqueue failed; the due-email dispatcher will send them', { error }));
  }
  return ids;
}

export async function getEmail(caller: Caller, emailId: string): Promise<EmailRecord> {
  const item = await getItem(keys.email(caller.projectId, emailId));
  if (!item) throw notFound('Email', 'email_id');
  return toRecord(item);
}

export async function listEmails(caller: Caller, page: PageRequest) {
  const { items, hasMore } = await queryPage(keys.emails(caller.projectId), page);
  return { records: items.map(toRecord), hasMore };
}

const notScheduled = (what: string) => () => conflict('email_not_scheduled', `Only a scheduled email can be ${what}`);

/** Moves a scheduled email to a new time (the dispatcher sends it then). */
export async function rescheduleEmail(caller: Caller, emailId: string, scheduledAt: string): Promise<void> {
  const time = Date.parse(scheduledAt);
  if (time - Date.now() > MAX_SCHEDULE_AHEAD_MS) throw unprocessable([{ code: 'too_far_ahead', message: 'scheduled_at may be at most 30 days ahead', path: 'scheduled_at' }]);
  const existing = await getItem(keys.email(caller.projectId, emailId));
  if (!existing) throw notFound('Email', 'email_id');
  const at = new Date(Math.max(time, Date.now())).toISOString();
  await transact([
    update(
      keys.email(caller.projectId, emailId),
      { set: { scheduled_at: at, ...keys.emailDue(caller.projectId, emailId, at) }, condition: { expression: 'last_event = :scheduled', values: { ':scheduled': 'scheduled' } } },
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
      { set: { last_event: 'canceled' }, remove: ['GSI1PK', 'GSI1SK'], condition: { expression: 'last_event = :scheduled', values: { ':scheduled': 'scheduled' } } },
      notScheduled('canceled'),
    ),
    eventWrite(caller, 'email.canceled', { ...toRecord(existing), last_event: 'canceled' }),
  ]);
}

/** Retry: only a failed email goes back to queued; the contract makes `errors` an object here. */
export async function retryEmail(caller: Caller, emailId: string): Promise<EmailRecord> {
  const existing = await getItem(keys.email(caller.projectId, emailId));
  if (!existing) {
    throw new ApiError(404, 'not_found', 'Email not found', { code: 'not_found', email_id: emailId });
  }
  const notRetryable = (lastEvent: string) =>
    new ApiError(409, 'application_error', `Only a failed email can be retried; this one is ${lastEvent}`, {
      code: 'email_not_retryable',
      last_event: lastEvent,
    });
  if (existing.last_event !== 'failed') throw notRetryable(existing.last_event);
  const record: EmailRecord = { ...toRecord(existing), last_event: 'queued' };
  await transact([
    update(
      keys.email(caller.projectId, emailId),
      {
        set: { last_event: 'queued', ...keys.emailDue(caller.projectId, emailId, new Date(Date.now() + SEND_LEASE_MS).toISOString()) },
        remove: ['failure_reason'],
        condition: { expression: 'last_event = :failed', values: { ':failed': 'failed' } },
      },
      () => notRetryable('no longer failed'),
    ),
    eventWrite(caller, 'email.queued', record),
  ]);
  await sendQueue.enqueue([{ project_id: caller.projectId, email_id: emailId }]).catch((error) => logger.warn('enqueue failed; the due-email dispatcher will send it', { error }));
  return record;
}
