/**
 * Mail an inbox sends: replies, forwards and drafts sent. Each is an email like any other (POST
 * /emails' acceptEmails: suppressions, quotas, test mode, events, webhooks), from the inbox's
 * address (with its `from_name`), accepted in ONE transaction with its place in the thread
 * (`alongside`): the thread's message (direction `outbound`, id = the email's id), the thread's
 * count and time, the subject keys of its recipients, and `inbox.message.sent`.
 *
 * Threading headers are the service's: a reply carries `In-Reply-To` (the original's Message-ID)
 * and `References` (the original's references and its Message-ID, the last 20); a forward
 * `References` only. Custom headers may not set them (422). SES gives the sent email its own
 * Message-ID (it overrides one in the request), which the sender files under the thread when SES
 * takes it (./sent.ts), so an answer threads by its In-Reply-To; its References name the earlier
 * messages too.
 *
 * Recipients of a reply: the original's Reply-To, else its sender (for a message this inbox sent:
 * its `to`); `reply_all` adds the original's other `to` and `cc` (never the inbox itself) to `cc`;
 * at most 50 in all (422). Subject: `Re: <original>` unless it has a reply prefix already.
 * A forward carries the original's attachments (those sent from a URL cannot travel: 422), with
 * the request's: 10 files and 25 MB at most together.
 */
import type { Caller } from '../platform/caller';
import * as keys from '../platform/db/keys';
import { getItem, isConditionFailed, put, update, type Item, type WriteAction } from '../platform/db/table';
import { unprocessable, type ErrorDetail } from '../platform/errors';
import { getObject } from '../platform/aws/s3';
import { eventWrite } from '../events/events';
import { acceptEmails, type Accepted } from '../emails/emails';
import { getEmailContent } from '../emails/content';
import { toSummary } from '../emails/record';
import { attachmentKey as sentAttachmentKey, blockedFileProblem, type StoredAttachment } from '../emails/attachments';
import type { IdempotencyRequest } from '../emails/idempotency';
import { MAX_RECIPIENTS, type SendEmailInput } from '../emails/model';
import type { EmailItem } from '../emails/item';
import { attachmentKey as receivedAttachmentKey } from '../receiving/received-emails';
import { readInbox } from './inboxes';
import { messageBodies, missingMessage, newThreadItem, readThread } from './threads';
import { threadingKeyWrites } from './filing';
import { bareAddressOf, hasReplyPrefix, normalizeMessageId, participantsOf } from './threading';
import { MAX_FILE_BYTES, MAX_FILES, type ForwardInput, type ReplyInput } from './model';

type Attachment = NonNullable<SendEmailInput['attachments']>[number];
const list = (value: string | string[] | undefined | null): string[] => (value == null ? [] : [value].flat());
const angle = (id: string) => (id.startsWith('<') ? id : `<${id}>`);

/** The inbox's From: its address with its `from_name` (quoted when it needs to be). */
export function fromOf(inbox: Item): string {
  const name = inbox.from_name as string | null;
  if (!name) return inbox.email_address;
  return /[",;<>@()[\]:\\]/.test(name)
    ? `"${name.replace(/(["\\])/g, '\\$1')}" <${inbox.email_address}>`
    : `${name} <${inbox.email_address}>`;
}

const refuse = (code: string, message: string, path: string) => unprocessable([{ code, message, path }]);

/** From, to, cc and bcc of mail the inbox sends: at most 50 recipients, at least one in `to` (422 otherwise). */
export function addressed(inbox: Item, to: string[], cc: string[], bcc: string[]) {
  const count = to.length + cc.length + bcc.length;
  if (count > MAX_RECIPIENTS)
    throw refuse(
      'too_many_recipients',
      `to, cc and bcc together take at most ${MAX_RECIPIENTS} addresses (this has ${count})`,
      'cc',
    );
  if (to.length === 0) throw refuse('missing_recipient', 'the email needs at least one recipient in to', 'to');
  return { from: fromOf(inbox), to, ...(cc.length ? { cc } : {}), ...(bcc.length ? { bcc } : {}) };
}

/** The writes that put an outbound message in its thread (a new one when `thread` is undefined: a standalone draft). */
function threadWrites(
  caller: Caller,
  inbox: Item,
  thread: Item | undefined,
  threadId: string,
  email: EmailItem,
  extra: { references: string[]; attachments: number; threadAdd?: Record<string, number> },
): WriteAction[] {
  const projectId = caller.projectId;
  const at = email.created_at;
  const summary = { from: email.from, to: email.to, cc: email.cc ?? [], bcc: email.bcc ?? [] };
  const expiresAt = email.expires_at;
  const writes: WriteAction[] = [
    put({
      ...keys.inboxMessageRef(projectId, inbox.id, email.id),
      type: 'inbox_message_ref',
      thread_id: threadId,
      ...(expiresAt ? { expires_at: expiresAt } : {}),
    }),
    put({
      ...keys.inboxMessage(projectId, inbox.id, threadId, email.id),
      type: 'inbox_message',
      id: email.id,
      thread_id: threadId,
      inbox_id: inbox.id,
      direction: 'outbound',
      ...summary,
      reply_to: [],
      subject: email.subject ?? null,
      message_id: null,
      references: extra.references,
      attachments: [], // shown from the email's content (GET /emails/{id}/attachments)
      attachment_count: extra.attachments,
      received_at: at,
      ...(expiresAt ? { expires_at: expiresAt } : {}),
    }),
    ...threadingKeyWrites(projectId, inbox.id, threadId, {
      message_id: null,
      subject: email.subject ?? null,
      participants: participantsOf({ from: email.from, to: email.to, cc: email.cc ?? [] }, inbox.email_address),
      at,
    }),
    eventWrite(caller, 'inbox.message.sent', {
      object: 'inbox_email',
      id: email.id,
      inbox_id: inbox.id,
      thread_id: threadId,
      direction: 'outbound',
      ...summary,
      subject: email.subject ?? null,
      received_at: at,
    }),
  ];
  if (thread) {
    const retained = Math.max(Number(thread.retained_until ?? 0), Number(expiresAt ?? 0)) || undefined;
    writes.push(
      update(
        keys.inboxThread(projectId, inbox.id, threadId),
        {
          set: {
            ...summary,
            last_at: at,
            ...keys.inboxThreadInFolder(projectId, inbox.id, thread.folder, at, threadId),
            ...(retained ? { retained_until: retained } : {}),
            ...(thread.folder !== 'trash' && retained ? { expires_at: retained } : {}),
          },
          add: { email_count: 1, attachment_count: extra.attachments, ...extra.threadAdd },
          condition: {
            expression: 'attribute_exists(PK) AND #folder = :folder',
            names: { '#folder': 'folder' },
            values: { ':folder': thread.folder },
          },
        },
        { tag: 'thread moved' },
      ),
    );
  } else {
    writes.push(
      put(
        newThreadItem(projectId, inbox.id, threadId, {
          subject: email.subject ?? null,
          addresses: summary,
          attachments: extra.attachments,
          at,
          direction: 'outbound',
          expiresAt,
        }),
      ),
      eventWrite(caller, 'inbox.thread.created', {
        object: 'inbox_thread',
        id: threadId,
        inbox_id: inbox.id,
        subject: email.subject ?? null,
        from: email.from,
        first_email_id: email.id,
        received_at: at,
        agent: null,
      }),
    );
  }
  return writes;
}

export interface InboxSend {
  inbox: Item;
  /** the thread it goes into; undefined: a new thread (`threadId` given) */
  thread?: Item;
  threadId: string;
  email: SendEmailInput;
  references: string[];
  idempotency?: IdempotencyRequest;
  /** more writes for the same transaction (a draft sent: the draft deleted) */
  also?: WriteAction[];
  /** more to add on the thread's item, in its own update (one item is written once per transaction) */
  threadAdd?: Record<string, number>;
}

/** Accepts the email with its place in the thread; a thread moved meanwhile (another folder) is re-read and tried again. */
export async function sendFromInbox(caller: Caller, send: InboxSend): Promise<Accepted & { threadId: string }> {
  let thread = send.thread;
  for (let attempt = 1; ; attempt++) {
    try {
      const accepted = await acceptEmails(caller, [send.email], {
        batch: false,
        idempotency: send.idempotency,
        alongside: {
          fields: { inbox_thread: { inbox_id: send.inbox.id, thread_id: send.threadId } },
          writes: (item) => [
            ...threadWrites(caller, send.inbox, thread, send.threadId, item, {
              references: send.references,
              attachments: send.email.attachments?.length ?? 0,
              threadAdd: send.threadAdd,
            }),
            ...(send.also ?? []),
          ],
        },
      });
      return { ...accepted, threadId: send.threadId };
    } catch (error) {
      if (!isConditionFailed(error, 'thread moved') || attempt >= 3 || !thread) throw error;
      thread = await readThread(caller.projectId, send.inbox.id, send.threadId);
    }
  }
}

/** The original message a reply or forward answers, with the thread. */
export async function readOriginal(caller: Caller, idOrAddress: string, threadId: string, messageId: string) {
  const inbox = await readInbox(caller, idOrAddress);
  const [thread, original] = await Promise.all([
    readThread(caller.projectId, inbox.id, threadId),
    getItem(keys.inboxMessage(caller.projectId, inbox.id, threadId, messageId)),
  ]);
  if (!original) throw missingMessage();
  // an outbound original's Message-ID is its email's, once SES took it
  if (original.direction === 'outbound' && !original.message_id) {
    const email = await getItem(keys.email(caller.projectId, original.id));
    if (email?.message_id) original.message_id = toSummary(email).message_id;
  }
  return { inbox, thread, original };
}

/** The references a reply or forward carries: the original's, then the original itself (the last 20). */
export function referencesAfter(original: Item): string[] {
  const ids = [...((original.references ?? []) as string[])].reverse(); // stored newest first
  if (original.message_id) ids.push(normalizeMessageId(original.message_id));
  return [...new Set(ids.filter(Boolean))].slice(-20);
}

export const threadingHeaders = (references: string[], inReplyTo?: string | null): Record<string, string> => ({
  ...(inReplyTo ? { 'In-Reply-To': angle(normalizeMessageId(inReplyTo)) } : {}),
  ...(references.length ? { References: references.map(angle).join(' ') } : {}),
});

/** The default recipients of a reply to `original` (see the module comment). */
export function replyRecipients(inbox: Item, original: Item, replyAll: boolean, extraCc: string[]) {
  const own = String(inbox.email_address).toLowerCase();
  const to =
    original.direction === 'outbound'
      ? ((original.to ?? []) as string[])
      : ((original.reply_to?.length ? original.reply_to : [original.from]) as string[]);
  const toBare = to.map(bareAddressOf).filter((a) => a && a !== own);
  const cc = replyAll
    ? [...((original.to ?? []) as string[]), ...((original.cc ?? []) as string[])]
        .map(bareAddressOf)
        .filter((a) => a && a !== own && !toBare.includes(a))
    : [];
  return { to: [...new Set(toBare)], cc: [...new Set([...cc, ...extraCc.map((a) => a)])] };
}

export const replySubject = (subject: string | null | undefined) =>
  hasReplyPrefix(subject) ? String(subject) : `Re: ${subject ?? ''}`.trim();

export async function replyTo(
  caller: Caller,
  idOrAddress: string,
  threadId: string,
  messageId: string,
  input: ReplyInput,
  idempotency?: IdempotencyRequest,
) {
  const { inbox, thread, original } = await readOriginal(caller, idOrAddress, threadId, messageId);
  const { to, cc } = replyRecipients(inbox, original, input.reply_all === true, list(input.cc));
  const references = referencesAfter(original);
  const email: SendEmailInput = {
    ...addressed(inbox, to, cc, list(input.bcc)),
    subject: input.subject ?? replySubject(original.subject),
    ...(input.html !== undefined ? { html: input.html } : {}),
    ...(input.text !== undefined ? { text: input.text } : {}),
    headers: { ...(input.headers ?? {}), ...threadingHeaders(references, original.message_id) },
    ...(input.attachments?.length ? { attachments: checkedFiles(input.attachments, []) } : {}),
  };
  return sendFromInbox(caller, { inbox, thread, threadId, email, references, idempotency });
}

/** The request's files with the original's, within the SDK's limits (10 files; 25 MB of `content`). */
function checkedFiles(files: Attachment[], originals: Attachment[]): Attachment[] {
  const all = [...originals, ...files];
  const problems: ErrorDetail[] = [];
  if (all.length > MAX_FILES)
    problems.push({
      code: 'too_many_attachments',
      message: `at most ${MAX_FILES} files together with the original's (${all.length})`,
      path: 'attachments',
    });
  const bytes = all.reduce((sum, a) => sum + (a.content ? Math.floor((a.content.length * 3) / 4) : 0), 0);
  for (const [i, file] of files.entries()) {
    const blocked = blockedFileProblem(file.filename ?? (file.path ? file.path.split('/').pop() : undefined));
    if (blocked) problems.push({ code: 'blocked_attachment', message: blocked, path: `attachments.${i}` });
    if (file.content !== undefined && file.content.length === 0)
      problems.push({ code: 'empty_attachment', message: 'the file is empty', path: `attachments.${i}` });
  }
  for (const file of originals) {
    const blocked = blockedFileProblem(file.filename);
    if (blocked)
      problems.push({
        code: 'blocked_attachment',
        message: `the original's ${file.filename}: ${blocked}`,
        path: 'attachments',
      });
  }
  if (bytes > MAX_FILE_BYTES)
    problems.push({
      code: 'attachments_too_large',
      message: `at most 25 MB of content together with the original's`,
      path: 'attachments',
    });
  if (problems.length) throw unprocessable(problems);
  return all;
}

/** The original's attachments as `content` files (inbound: the received email's objects; outbound: the sent email's). */
async function originalFiles(caller: Caller, original: Item): Promise<Attachment[]> {
  if (original.direction === 'inbound') {
    const metas = (original.attachments ?? []) as Item[];
    return Promise.all(
      metas.map(async (a) => {
        const bytes = await getObject(receivedAttachmentKey(caller.projectId, original.id, a.id));
        if (!bytes)
          throw refuse(
            'attachment_gone',
            `the original's attachment ${a.filename ?? a.id} is no longer stored`,
            'attachments',
          );
        return {
          filename: a.filename ?? 'attachment',
          content: bytes.toString('base64'),
          content_type: a.content_type,
        };
      }),
    );
  }
  const content = await getEmailContent(caller.projectId, original.id);
  const stored = (content?.attachments ?? []) as StoredAttachment[];
  return Promise.all(
    stored.map(async (a) => {
      if (a.path)
        throw refuse(
          'attachment_from_url',
          `the original's attachment ${a.filename ?? a.id} was sent from a URL and cannot be forwarded`,
          'attachments',
        );
      const bytes = await getObject(sentAttachmentKey(caller.projectId, original.id, a.id), 'content');
      if (!bytes)
        throw refuse(
          'attachment_gone',
          `the original's attachment ${a.filename ?? a.id} is no longer stored`,
          'attachments',
        );
      return { filename: a.filename ?? 'attachment', content: bytes.toString('base64'), content_type: a.content_type };
    }),
  );
}

const escapeHtml = (text: string) =>
  text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);

export async function forward(
  caller: Caller,
  idOrAddress: string,
  threadId: string,
  messageId: string,
  input: ForwardInput,
  idempotency?: IdempotencyRequest,
) {
  const { inbox, thread, original } = await readOriginal(caller, idOrAddress, threadId, messageId);
  const envelope = addressed(inbox, list(input.to), list(input.cc), list(input.bcc));
  const files = checkedFiles(input.attachments ?? [], await originalFiles(caller, original));
  const [body] = await messageBodies(caller.projectId, thread, [original]);
  const header = [
    '---------- Forwarded message ---------',
    `From: ${original.from}`,
    `Date: ${original.received_at}`,
    `Subject: ${original.subject ?? ''}`,
    `To: ${(original.to ?? []).join(', ')}`,
  ];
  const text = `${input.text ?? ''}\n\n${header.join('\n')}\n\n${body.text ?? ''}`.trim();
  const html =
    input.html !== undefined || body.html
      ? `${input.html ?? (input.text ? `<p>${escapeHtml(input.text)}</p>` : '')}<br><div>${header.map(escapeHtml).join('<br>')}</div><br>${body.html ?? `<pre>${escapeHtml(body.text ?? '')}</pre>`}`
      : undefined;
  const references = referencesAfter(original);
  const email: SendEmailInput = {
    ...envelope,
    subject: input.subject ?? `Fwd: ${original.subject ?? ''}`.trim(),
    text,
    ...(html !== undefined ? { html } : {}),
    headers: { ...(input.headers ?? {}), ...threadingHeaders(references) },
    ...(files.length ? { attachments: files } : {}),
  };
  return sendFromInbox(caller, { inbox, thread, threadId, email, references, idempotency });
}
