/**
 * The inboxes feature's model: inboxes, their threads and messages, labels, drafts and agent
 * settings as the API shows them (the shapes of the official SDK's `Inbox`, `InboxThread`,
 * `InboxThreadSummary`, `InboxMessage`, `InboxLabel`, `InboxDraft`, `InboxAgentSettings`), and the
 * bodies and queries the routes take. Zod and the platform's shared schemas only.
 */
import * as z from 'zod/mini';
import { headerSafe, id, listQuery, timestamp } from '../platform/http/schemas';
import { address, addresses } from '../platform/mail/schemas';
import { emailAttachment } from '../emails/model';

export const FOLDERS = ['inbox', 'archive', 'spam', 'sent', 'trash'] as const;
export type Folder = (typeof FOLDERS)[number];
/** Where a user can move a thread (`sent` is where a conversation the inbox started sits until an answer comes). */
export const MOVE_FOLDERS = ['inbox', 'archive', 'spam', 'trash'] as const;
export const AGENT_ACTIONS = [
  'draft_reply',
  'forward_thread',
  'add_labels',
  'assign_thread',
  'mark_as_spam',
  'archive',
  'move_to_trash',
] as const;
export const AGENT_TONES = [
  'concise_professional',
  'concise_casual',
  'expanded_professional',
  'expanded_casual',
] as const;
/** Labels per inbox; label ids per add/set call (the SDK's 1-10). */
export const MAX_LABELS = 100;
export const MAX_LABELS_PER_CALL = 10;
/** The SDK's limits on a reply's, forward's or draft's files. */
export const MAX_FILES = 10;
export const MAX_FILE_BYTES = 25 * 1024 * 1024;
/** The memory of the functions that load an inbox's search index (about 130 MB of heap per 25,000 messages: shared/inboxes/search.ts). */
export const INDEX_MEMORY_MB = 1024;

const inboxAddress = /* @__PURE__ */ (() =>
  z
    .string()
    .check(
      z.minLength(3),
      z.maxLength(254),
      z.regex(/^[^\s<>@]+@[^\s<>@]+$/, 'must be an email address such as support@example.com'),
    ))();
const name = /* @__PURE__ */ (() => z.string().check(z.minLength(1), z.maxLength(128), headerSafe))();

export const inboxSummary = /* @__PURE__ */ (() =>
  z.object({
    id,
    name: z.nullable(z.string()),
    email_address: z.string(),
    from_name: z.nullable(z.string()),
    unread: z.number().check(z.meta({ description: 'threads not read' })),
    last_received: z.nullable(timestamp),
    created_at: timestamp,
    updated_at: timestamp,
  }))();
export type InboxSummary = z.output<typeof inboxSummary>;

export const inbox = /* @__PURE__ */ (() =>
  z.extend(inboxSummary, {
    object: z.literal('inbox'),
    domain_id: id,
    receiving_address: z.nullable(z.string()).check(
      z.meta({
        description:
          "With `forwarding: true`, an address on the deployment's receiving domain (INBOX_FORWARDING_DOMAIN): mail an existing " +
          'mailbox forwards there lands in this inbox as if sent to `email_address`. null otherwise.',
      }),
    ),
    drafts: z.number(),
  }))();
export type Inbox = z.output<typeof inbox>;

export const createInboxBody = /* @__PURE__ */ (() =>
  z.strictObject({
    email_address: inboxAddress,
    name: z.optional(name),
    from_name: z.optional(name),
    forwarding: z.optional(z.boolean()),
  }))();
export type CreateInboxInput = z.output<typeof createInboxBody>;

export const updateInboxBody = /* @__PURE__ */ (() =>
  z.strictObject({ name: z.optional(name), from_name: z.optional(name) }).check(
    z.refine((b) => b.name !== undefined || b.from_name !== undefined, {
      message: 'give name or from_name',
      path: ['name'],
    }),
  ))();
export type UpdateInboxInput = z.output<typeof updateInboxBody>;

export const agentSettings = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('inbox_agent'),
    instructions: z.nullable(z.string()),
    tone: z.nullable(z.enum(AGENT_TONES)),
    actions: z.array(z.enum(AGENT_ACTIONS)),
  }))();
export type AgentSettings = z.output<typeof agentSettings>;
export const updateAgentBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      instructions: z.optional(z.nullable(z.string().check(z.maxLength(10_000)))),
      tone: z.optional(z.nullable(z.enum(AGENT_TONES))),
      actions: z.optional(z.array(z.enum(AGENT_ACTIONS)).check(z.maxLength(AGENT_ACTIONS.length))),
    })
    .check(
      z.refine((b) => b.instructions !== undefined || b.tone !== undefined || b.actions !== undefined, {
        message: 'give instructions, tone or actions',
        path: ['instructions'],
      }),
    ))();
export type UpdateAgentInput = z.output<typeof updateAgentBody>;

const color = /* @__PURE__ */ (() =>
  z.string().check(z.regex(/^#[0-9A-Fa-f]{6}$/, 'must be a hex colour such as #E93D82')))();
export const label = /* @__PURE__ */ (() =>
  z.object({ id, name: z.string(), color: z.string(), created_at: timestamp }))();
export type Label = z.output<typeof label>;
export const createLabelBody = /* @__PURE__ */ (() =>
  z.strictObject({
    name: z.string().check(z.minLength(1), z.maxLength(64)),
    color: z.optional(color),
  }))();
export const updateLabelBody = /* @__PURE__ */ (() =>
  z
    .strictObject({ name: z.optional(z.string().check(z.minLength(1), z.maxLength(64))), color: z.optional(color) })
    .check(
      z.refine((b) => b.name !== undefined || b.color !== undefined, { message: 'give name or color', path: ['name'] }),
    ))();
export const threadLabel = /* @__PURE__ */ (() => z.object({ id, name: z.string(), color: z.string() }))();
export const threadLabelList = /* @__PURE__ */ (() =>
  z.object({ object: z.literal('list'), data: z.array(threadLabel) }))();
export const threadLabelsBody = /* @__PURE__ */ (() =>
  z.strictObject({
    labels: z.array(id).check(z.minLength(1), z.maxLength(MAX_LABELS_PER_CALL)),
  }))();
/** PUT replaces the thread's labels: 0-10 (an empty list clears them). */
export const setThreadLabelsBody = /* @__PURE__ */ (() =>
  z.strictObject({ labels: z.array(id).check(z.maxLength(MAX_LABELS_PER_CALL)) }))();

export const thread = /* @__PURE__ */ (() =>
  z.object({
    id,
    subject: z.nullable(z.string()),
    from: z.nullable(z.string()),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    labels: z.array(threadLabel),
    email_count: z.number(),
    has_attachment: z.boolean(),
    has_draft: z.boolean(),
    read: z.boolean(),
    received_at: timestamp,
    folder: z.enum(FOLDERS),
  }))();
export type Thread = z.output<typeof thread>;
export const threadSummary = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('inbox_thread'),
    id,
    subject: z.nullable(z.string()),
    folder: z.enum(FOLDERS),
    labels: z.array(threadLabel),
    read: z.boolean(),
  }))();
export type ThreadSummary = z.output<typeof threadSummary>;
export const searchResult = /* @__PURE__ */ (() =>
  z.extend(thread, {
    matched_email_id: z.nullable(id),
    highlights: z.array(z.string()).check(
      z.meta({
        description:
          'Snippets of the matched message around the words found, the words in <mark>; the rest HTML-escaped. Not a Resend field.',
      }),
    ),
  }))();

export const updateThreadBody = /* @__PURE__ */ (() =>
  z.strictObject({ read: z.optional(z.boolean()), folder: z.optional(z.enum(MOVE_FOLDERS)) }).check(
    z.refine((b) => b.read !== undefined || b.folder !== undefined, {
      message: 'give read or folder',
      path: ['read'],
    }),
  ))();

const commaList = <T extends string>(values: readonly T[] | undefined, what: string) =>
  z.string().check(
    z.refine((v) => v.split(',').every((s) => s.length > 0 && (!values || (values as readonly string[]).includes(s))), {
      message: values ? `one or more of ${values.join(', ')}, comma-separated` : `one or more ${what}, comma-separated`,
    }),
  );
const booleanQuery = /* @__PURE__ */ (() => z.enum(['true', 'false']))();
export const listThreadsQuery = /* @__PURE__ */ (() =>
  z.strictObject({
    ...listQuery.shape,
    folders: z.optional(commaList(FOLDERS, 'folders')),
    labels: z.optional(commaList(undefined, 'label ids')),
    read: z.optional(booleanQuery),
  }))();
export const searchThreadsQuery = /* @__PURE__ */ (() =>
  z.strictObject({
    ...listThreadsQuery.shape,
    query: z.optional(z.string().check(z.maxLength(500))),
    from: z.optional(commaList(undefined, 'addresses')),
    to: z.optional(commaList(undefined, 'addresses')),
    cc: z.optional(commaList(undefined, 'addresses')),
    bcc: z.optional(commaList(undefined, 'addresses')),
    has_attachment: z.optional(booleanQuery),
    start_date: z.optional(
      z
        .string()
        .check(z.regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/, 'must be an ISO date or date-time')),
    ),
    end_date: z.optional(
      z
        .string()
        .check(z.regex(/^\d{4}-\d{2}-\d{2}(T[\d:.]+(Z|[+-]\d{2}:\d{2}))?$/, 'must be an ISO date or date-time')),
    ),
  }))();

export const messageAttachment = /* @__PURE__ */ (() =>
  z.object({
    id,
    filename: z.nullable(z.string()),
    size: z.nullable(z.number()),
    content_type: z.string().check(z.meta({ description: 'Not a Resend field.' })),
  }))();
export const message = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('inbox_email'),
    id,
    thread_id: id,
    direction: z.enum(['inbound', 'outbound']),
    from: z.string(),
    to: z.array(z.string()),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    reply_to: z.array(z.string()),
    subject: z.nullable(z.string()),
    message_id: z.nullable(z.string()),
    html: z.nullable(z.string()),
    text: z.nullable(z.string()),
    truncated: z.boolean().check(
      z.meta({
        description:
          'true when `text` or `html` were cut to fit the answer (4 MB of bodies per message, 5 MB per page). Not a Resend field.',
      }),
    ),
    attachments: z.array(messageAttachment),
    read: z.boolean(),
    received_at: timestamp,
  }))();
export type Message = z.output<typeof message>;

/** Custom headers of a reply, forward or draft send: as on POST /emails, and never the threading headers the service sets. */
export const THREADING_HEADERS = ['in-reply-to', 'references', 'reply-to'];
const headers = /* @__PURE__ */ (() =>
  z.optional(
    z.nullable(
      z.record(z.string(), z.string()).check(
        z.superRefine((record, ctx) => {
          for (const [key, value] of Object.entries(record)) {
            if (THREADING_HEADERS.includes(key.toLowerCase()))
              ctx.addIssue({
                code: 'custom',
                input: key,
                path: [key],
                message: `${key} is set by the service (In-Reply-To, References and Reply-To cannot be set)`,
              });
            else if (!key || /[\r\n\0:]/.test(key) || /[\r\n\0]/.test(value))
              ctx.addIssue({
                code: 'custom',
                input: key,
                path: [key],
                message: 'header names cannot be empty; names and values cannot contain line breaks or null characters',
              });
          }
        }),
      ),
    ),
  ))();
const files = /* @__PURE__ */ (() => z.optional(z.array(emailAttachment).check(z.maxLength(MAX_FILES))))();
const subject = /* @__PURE__ */ (() => z.optional(z.string().check(z.minLength(1), z.maxLength(998), headerSafe)))();

export const replyBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      html: z.optional(z.string()),
      text: z.optional(z.string()),
      cc: z.optional(addresses),
      bcc: z.optional(addresses),
      subject,
      reply_all: z.optional(z.boolean()),
      attachments: files,
      headers,
    })
    .check(
      z.refine((b) => b.html !== undefined || b.text !== undefined, {
        message: 'html or text is required',
        path: ['html'],
      }),
    ))();
export type ReplyInput = z.output<typeof replyBody>;

export const forwardBody = /* @__PURE__ */ (() =>
  z.strictObject({
    to: addresses,
    cc: z.optional(addresses),
    bcc: z.optional(addresses),
    html: z.optional(z.string()),
    text: z.optional(z.string()),
    subject,
    attachments: files,
    headers,
  }))();
export type ForwardInput = z.output<typeof forwardBody>;

export const sentResponse = /* @__PURE__ */ (() => z.object({ id, object: z.literal('email'), thread_id: id }))();

// Drafts
const draftAddresses = /* @__PURE__ */ (() =>
  z.optional(z.nullable(z.union([address, z.array(address).check(z.maxLength(50))]))))();
const draftFile = /* @__PURE__ */ (() =>
  z.strictObject({
    filename: z
      .string()
      .check(z.minLength(1), z.maxLength(256), headerSafe, z.regex(/^[^"\\]*$/, 'must not contain " or \\')),
    content: z.optional(z.string().check(z.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'))),
    path: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
    content_type: z.optional(z.string().check(z.maxLength(256), headerSafe)),
  }))();
const draftContent = /* @__PURE__ */ (() => ({
  to: draftAddresses,
  cc: draftAddresses,
  bcc: draftAddresses,
  subject: z.optional(z.nullable(z.string().check(z.maxLength(998), headerSafe))),
  text: z.optional(z.nullable(z.string())),
  html: z.optional(z.nullable(z.string())),
}))();
const someContent = (b: Record<string, unknown>) =>
  ['to', 'cc', 'bcc', 'subject', 'text', 'html', 'attachments'].some((k) => b[k] !== undefined);
export const createDraftBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...draftContent,
      attachments: z.optional(z.array(draftFile).check(z.maxLength(MAX_FILES))),
      thread_id: z.optional(id),
      reply_to_email_id: z.optional(id),
    })
    .check(
      z.refine(someContent, {
        message: 'give at least one of to, cc, bcc, subject, text, html, attachments',
        path: ['to'],
      }),
      z.refine((b) => (b.thread_id === undefined) === (b.reply_to_email_id === undefined), {
        message: 'a reply draft takes both thread_id and reply_to_email_id',
        path: ['reply_to_email_id'],
      }),
    ))();
export type CreateDraftInput = z.output<typeof createDraftBody>;
export const updateDraftBody = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...draftContent,
      attachments: z.optional(z.nullable(z.array(draftFile).check(z.maxLength(MAX_FILES)))),
    })
    .check(
      z.refine(someContent, {
        message: 'give at least one of to, cc, bcc, subject, text, html, attachments',
        path: ['to'],
      }),
    ))();
export type UpdateDraftInput = z.output<typeof updateDraftBody>;
export const sendDraftBody = /* @__PURE__ */ (() => z.optional(z.strictObject({ headers })))();

export const draftAttachment = /* @__PURE__ */ (() =>
  z.object({ id, filename: z.string(), content_type: z.string(), size: z.number() }))();
export const draft = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('inbox_draft'),
    id,
    type: z.enum(['standalone', 'reply']),
    to: z.nullable(z.array(z.string())),
    cc: z.array(z.string()),
    bcc: z.array(z.string()),
    subject: z.nullable(z.string()),
    html: z.nullable(z.string()),
    text: z.nullable(z.string()),
    thread_id: z.nullable(id),
    reply_to_email_id: z.nullable(id),
    email_id: z.nullable(id),
    created_at: timestamp,
    updated_at: timestamp,
    attachments: z.array(draftAttachment),
  }))();
export type Draft = z.output<typeof draft>;
/** A draft in a list: no bodies, a snippet of the text instead. */
export const draftListItem = /* @__PURE__ */ (() =>
  z.extend(z.omit(draft, { object: true, html: true, text: true, email_id: true, created_at: true }), {
    snippet: z.nullable(z.string()),
  }))();
