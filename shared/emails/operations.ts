import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import { commonErrors, conflictResponse, dynamoNumber, errorEnvelope, headerSafe, id, listOf, listQuery, notFoundResponse, timestamp } from '../platform/http/schemas';
import { addresses, fromAddress } from './model';

const TAG = /^[A-Za-z0-9_-]{1,256}$/;
/** Tag names the sender puts on every SES send itself (shared/emails/sender.ts): a send may not carry them (any case). */
export const RESERVED_TAG_NAMES: readonly string[] = ['email_id', 'project_id'];
const tag = z.strictObject({
  name: z.string().check(
    z.regex(TAG, 'ASCII letters, digits, _ or -, at most 256 characters'),
    z.superRefine((name, ctx) => {
      if (RESERVED_TAG_NAMES.includes(name.toLowerCase()))
        ctx.addIssue({ code: 'custom', input: name, message: `tag name "${name}" is reserved: the service sets ${RESERVED_TAG_NAMES.join(' and ')} on every email itself` });
    }),
  ),
  value: z.string().check(z.regex(TAG, 'ASCII letters, digits, _ or -, at most 256 characters')),
});
/** A MIME type (RFC 6838 names), with optional `; name=value` parameters: it goes into the attachment's Content-Type header. */
const MIME_TYPE = /^[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}(?:\s*;\s*[\w!#$&^.+-]+=(?:[\w!#$&^.+-]+|"[^"\\]*"))*$/;
const attachment = z.strictObject({
  // goes into the attachment's Content-Disposition and Content-Type headers
  filename: z.string().check(z.minLength(1), z.maxLength(256), headerSafe, z.regex(/^[^"\\]*$/, 'must not contain " or \\')),
  content: z.string().check(z.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64')),
  content_type: z.optional(z.string().check(z.maxLength(256), headerSafe, z.regex(MIME_TYPE, 'must be a MIME type such as application/pdf, optionally with ; name=value parameters'))),
});

/**
 * Custom headers as SES v2 takes them (MessageHeader): a name of printable ASCII but `:`
 * (RFC 5322's field-name), 1-126 characters; a value of printable ASCII, 1-870 characters (no
 * line breaks, so no header of its own). The fields the message itself is made of, and SES's own
 * `X-SES-*` controls (configuration set, tags), are the service's: refused in any case.
 */
export const RESERVED_HEADERS: readonly string[] = [
  'from',
  'to',
  'cc',
  'bcc',
  'sender',
  'reply-to',
  'subject',
  'message-id',
  'return-path',
  'date',
  'dkim-signature',
  'domainkey-signature',
  'content-type',
  'content-transfer-encoding',
  'content-disposition',
  'content-id',
  'mime-version',
  'received',
  'feedback-id',
];
const RESERVED_HEADER_PREFIXES: readonly string[] = ['resent-', 'x-ses-'];
const headerName = z.string().check(
  z.regex(/^[!-9;-~]{1,126}$/, 'must be a header name: 1-126 printable ASCII characters, no ":" or space'),
  z.superRefine((name, ctx) => {
    const lower = name.toLowerCase();
    if (RESERVED_HEADERS.includes(lower) || RESERVED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
      ctx.addIssue({ code: 'custom', input: name, message: `the ${name} header is set by the service (from, to, subject and the other fields of the request); it cannot be given as a custom header` });
    }
  }),
);
const headerValue = z.string().check(z.regex(/^[ -~]{1,870}$/, 'must be 1-870 printable ASCII characters (no line breaks or control characters)'));

export const MAX_RECIPIENTS = 50;
export const MAX_BATCH = 100;

/** `template.variables`: values by key, a string or a number as the variable is declared. */
const templateRef = z.strictObject({
  id: z.string().check(z.minLength(1), z.maxLength(64)),
  variables: z.optional(z.record(z.string().check(z.maxLength(64)), z.union([z.string(), dynamoNumber]))),
});
const FROM_TEMPLATE = 'comes from the template: leave it out when sending with template';

export const sendEmailBody = z
  .strictObject({
    from: z.optional(fromAddress),
    to: addresses,
    cc: z.optional(addresses),
    bcc: z.optional(addresses),
    reply_to: z.optional(addresses),
    subject: z.optional(z.string().check(z.minLength(1), z.maxLength(998), headerSafe)),
    html: z.optional(z.string()),
    text: z.optional(z.string()),
    headers: z.optional(z.record(headerName, headerValue)),
    tags: z.optional(z.array(tag).check(z.maxLength(50))),
    scheduled_at: z.optional(z.iso.datetime({ offset: true })),
    attachments: z.optional(z.array(attachment).check(z.maxLength(20))),
    template: z.optional(templateRef),
  })
  .check(
    // from and subject are required, unless a template is given (it may have them; shared/templates/templates.ts)
    z.superRefine((e, ctx) => {
      if (e.template !== undefined) return;
      for (const field of ['from', 'subject'] as const) {
        if (e[field] === undefined) ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: [field] });
      }
    }),
    z.refine((e) => e.template !== undefined || e.html !== undefined || e.text !== undefined, { message: 'html or text is required', path: ['html'] }),
    z.refine((e) => e.template === undefined || e.html === undefined, { message: `html ${FROM_TEMPLATE}`, path: ['html'] }),
    z.refine((e) => e.template === undefined || e.text === undefined, { message: `text ${FROM_TEMPLATE}`, path: ['text'] }),
    z.refine((e) => [e.to, e.cc ?? [], e.bcc ?? []].flat().length <= MAX_RECIPIENTS, {
      message: `to, cc and bcc together take at most ${MAX_RECIPIENTS} addresses`,
      path: ['to'],
    }),
  );
export type SendEmailInput = z.output<typeof sendEmailBody>;

export const email = z.object({
  object: z.literal('email'),
  id,
  message_id: z.nullable(z.string()),
  from: z.string(),
  to: z.array(z.string()),
  cc: z.array(z.string()),
  bcc: z.array(z.string()),
  reply_to: z.array(z.string()),
  subject: z.string(),
  html: z.nullable(z.string()),
  text: z.nullable(z.string()),
  headers: z.record(z.string(), z.string()),
  tags: z.array(z.object({ name: z.string(), value: z.string() })),
  last_event: z.string(),
  scheduled_at: z.nullable(timestamp),
  created_at: timestamp,
  broadcast_id: z.optional(id),
});

const emailParams = z.strictObject({ email_id: id });
const templateNote =
  "With `template: {id, variables?}` (`id` the template's id or alias) the email is the template's published version " +
  'rendered with `variables`: `{{{KEY}}}` inserts a value as it is, `{{KEY}}` HTML-escaped (in html; as it is in text and ' +
  'subject); a declared variable without a value takes its fallback. `html` and `text` must then be left out; `from`, ' +
  "`subject` and `reply_to` default to the template's. 422 (path under `template`): `template_not_found`, " +
  '`template_not_published` (never published), `unknown_template_variable` (not declared), `invalid_template_variable` ' +
  '(not of the declared type), `missing_template_variable` (used, no value, no fallback); a rendered subject must be 1-998 characters (`invalid_subject`).';
const messageNote =
  'Each of `from`, `to`, `cc`, `bcc` and `reply_to` (or each entry of their lists) is exactly one mailbox: `addr`, `<addr>`, ' +
  '`Name <addr>` or `"Name" <addr>`; lists, groups and comments are refused (422), and a display name may not hold `@`, `<`, `>` or ' +
  'control characters (`,` `;` only inside double quotes, and never in `from`); encoded-words are decoded before that check. ' +
  '`subject`, attachment `filename` and `content_type` refuse CR, LF, NUL, U+2028, U+2029 and other control characters (422). ' +
  `\`headers\`: names of printable ASCII but \`:\` (1-126), values of printable ASCII (1-870), as SES takes them; ${RESERVED_HEADERS.join(', ')} ` +
  'and `Resent-*`, `X-SES-*` are set by the service and refused (422, any case).';
const tagsNote = `\`tags\` names ${RESERVED_TAG_NAMES.map((n) => `\`${n}\``).join(' and ')} are reserved (the service sets them on every email): 422.`;
const idempotencyNote =
  'With an `Idempotency-Key` header (1-256 characters), the same key and body within 24 h replays the first response ' +
  'and sends nothing new; the same key with another body is 409 `invalid_idempotent_request`. A replay answers only ids of ' +
  'emails that were written.';

export const send = defineOperation({
  operationId: 'sendEmail',
  summary: 'Send an email',
  description:
    'Stores the email as `queued` (or `scheduled` when `scheduled_at` is in the future) and sends it through SES from the ' +
    "sender's verified domain. Live keys need a verified domain; test keys (`es_test_`) may use any domain of the " +
    'project and never reach SES. `html` or `text` must have content, after rendering a template (422 `missing_content`). ' +
    "The sender checks the From domain again: an email whose domain is no longer the project's, enabled and (live) verified " +
    'ends `failed` with the reason, without reaching SES; deleting a domain cancels its emails still waiting. ' +
    tagsNote +
    ' ' +
    messageNote +
    ' ' +
    templateNote +
    ' ' +
    idempotencyNote,
  tags: ['Emails'],
  auth: 'api_key',
  scope: 'sending_access',
  body: sendEmailBody,
  responses: { 200: { description: 'The email is accepted', schema: z.object({ id }) }, ...commonErrors, 409: conflictResponse },
});

export const sendBatch = defineOperation({
  operationId: 'sendBatchEmails',
  summary: 'Send up to 100 emails at once',
  description:
    'Strict: every email is validated first; one invalid email refuses the whole batch (422, paths start with its index). ' +
    'All or nothing: the emails are written together or none is (a batch over one DynamoDB transaction is staged and ' +
    'committed by one write). ' +
    'Each email may use a `template` as in POST /emails; each distinct template is read once. ' +
    tagsNote +
    ' ' +
    messageNote +
    ' ' +
    idempotencyNote,
  tags: ['Emails'],
  auth: 'api_key',
  scope: 'sending_access',
  body: z.array(sendEmailBody).check(z.minLength(1), z.maxLength(MAX_BATCH)),
  responses: { 200: { description: 'The emails are accepted', schema: z.object({ data: z.array(z.object({ id })) }) }, ...commonErrors, 409: conflictResponse },
});

export const get = defineOperation({
  operationId: 'getEmail',
  summary: 'Retrieve an email',
  tags: ['Emails'],
  auth: 'api_key',
  params: emailParams,
  responses: { 200: { description: 'The email', schema: email }, ...commonErrors, 404: notFoundResponse },
});

export const list = defineOperation({
  operationId: 'listEmails',
  summary: 'List emails, newest first',
  tags: ['Emails'],
  auth: 'api_key',
  query: listQuery,
  responses: { 200: { description: 'A page of emails', schema: listOf(email) }, ...commonErrors },
});

export const update = defineOperation({
  operationId: 'updateEmail',
  summary: 'Reschedule a scheduled email',
  tags: ['Emails'],
  auth: 'api_key',
  params: emailParams,
  body: z.strictObject({ scheduled_at: z.iso.datetime({ offset: true }) }),
  responses: {
    200: { description: 'The email, rescheduled', schema: z.object({ object: z.literal('email'), id }) },
    ...commonErrors,
    404: notFoundResponse,
    409: { description: 'The email is not scheduled (any more)', schema: errorEnvelope },
  },
});

export const cancel = defineOperation({
  operationId: 'cancelEmail',
  summary: 'Cancel a scheduled email',
  tags: ['Emails'],
  auth: 'api_key',
  params: emailParams,
  responses: {
    200: { description: 'The email is canceled', schema: z.object({ object: z.literal('email'), id }) },
    ...commonErrors,
    404: notFoundResponse,
    409: { description: 'The email is not scheduled (any more)', schema: errorEnvelope },
  },
});

const retryError = z.object({ name: z.string(), message: z.string(), statusCode: z.number(), errors: z.record(z.string(), z.unknown()) });
export const retry = defineOperation({
  operationId: 'retryEmail',
  summary: 'Re-queue a failed email',
  description:
    'Allowed only when `last_event` is `failed`: the email goes back to `queued` and is sent again. ' +
    'As the contract says, the 404 and 409 bodies carry `errors` as an object, e.g. `{"code":"email_not_retryable","last_event":"delivered"}`.',
  tags: ['Emails'],
  auth: 'api_key',
  params: emailParams,
  responses: {
    200: { description: 'The email, re-queued', schema: email },
    ...commonErrors,
    404: { description: 'No such email', schema: retryError },
    409: { description: 'The email is not in a retryable state', schema: retryError },
  },
});
