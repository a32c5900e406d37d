/**
 * The emails feature's model: the email as the API shows it and what POST /emails and
 * /emails/batch take (the address shapes are the platform's, shared/platform/mail/schemas.ts:
 * templates and broadcasts take addresses as POST /emails does). SendEmailInput and EmailRecord are derived from these
 * schemas; the stored item (EmailItem) stays with the logic (shared/emails/emails.ts).
 */
import * as z from 'zod/mini';
import { dynamoNumber, headerSafe, id, listQuery, timestamp } from '../platform/http/schemas';
import { LAST_EVENTS, type LastEvent } from '../platform/mail/last-events';
import { addresses, fromAddress } from '../platform/mail/schemas';

export { LAST_EVENTS, type LastEvent };

const TAG = /^[A-Za-z0-9_-]{1,256}$/;
/** Tag names the sender puts on every SES send itself (shared/emails/sender.ts): a send may not carry them (any case). */
export const RESERVED_TAG_NAMES: readonly string[] = ['email_id', 'project_id'];
const tag = /* @__PURE__ */ (() =>
  z.strictObject({
    name: z.string().check(
      z.regex(TAG, 'ASCII letters, digits, _ or -, at most 256 characters'),
      z.superRefine((name, ctx) => {
        if (RESERVED_TAG_NAMES.includes(name.toLowerCase()))
          ctx.addIssue({
            code: 'custom',
            input: name,
            message: `tag name "${name}" is reserved: the service sets ${RESERVED_TAG_NAMES.join(' and ')} on every email itself`,
          });
      }),
    ),
    value: z.string().check(z.regex(TAG, 'ASCII letters, digits, _ or -, at most 256 characters')),
  }))();
/** A MIME type (RFC 6838 names), with optional `; name=value` parameters: it goes into the attachment's Content-Type header. */
const MIME_TYPE =
  /^[A-Za-z0-9][\w!#$&^.+-]{0,126}\/[A-Za-z0-9][\w!#$&^.+-]{0,126}(?:\s*;\s*[\w!#$&^.+-]+=(?:[\w!#$&^.+-]+|"[^"\\]*"))*$/;
/**
 * Resend's attachment: `content` (base64) or `path` (an https URL the sender fetches when it sends:
 * shared/emails/attachments.ts), a `filename` (required with content; with a path, the URL's last
 * segment by default), `content_type` (else inferred from the file name) and `content_id` (an
 * inline attachment, for `cid:` references in the html).
 */
export const emailAttachment = /* @__PURE__ */ (() =>
  z
    .strictObject({
      // goes into the attachment's Content-Disposition and Content-Type headers
      filename: z.optional(
        z
          .string()
          .check(z.minLength(1), z.maxLength(256), headerSafe, z.regex(/^[^"\\]*$/, 'must not contain " or \\')),
      ),
      content: z.optional(z.string().check(z.regex(/^[A-Za-z0-9+/]*={0,2}$/, 'must be base64'))),
      path: z.optional(z.string().check(z.minLength(1), z.maxLength(2048))),
      content_type: z.optional(
        z
          .string()
          .check(
            z.maxLength(256),
            headerSafe,
            z.regex(MIME_TYPE, 'must be a MIME type such as application/pdf, optionally with ; name=value parameters'),
          ),
      ),
      // the Content-ID's id (RFC 5322 msg-id characters, without the angle brackets)
      content_id: z.optional(
        z
          .string()
          .check(
            z.minLength(1),
            z.maxLength(128),
            z.regex(
              /^[A-Za-z0-9!#$%&'*+\-/=?^_`{|}~.@]+$/,
              'must be 1-128 characters of a Message-ID (letters, digits, . @ - _ and the like), without < >',
            ),
          ),
      ),
    })
    .check(
      z.refine((a) => (a.content === undefined) !== (a.path === undefined), {
        message: 'an attachment has either content (base64) or a path (a URL), not both',
        path: ['content'],
      }),
      z.refine((a) => a.path !== undefined || a.filename !== undefined, {
        message: 'filename is required with content',
        path: ['filename'],
      }),
    ))();

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
const headerName = /* @__PURE__ */ (() =>
  z.string().check(
    z.regex(/^[!-9;-~]{1,126}$/, 'must be a header name: 1-126 printable ASCII characters, no ":" or space'),
    z.superRefine((name, ctx) => {
      const lower = name.toLowerCase();
      if (RESERVED_HEADERS.includes(lower) || RESERVED_HEADER_PREFIXES.some((prefix) => lower.startsWith(prefix))) {
        ctx.addIssue({
          code: 'custom',
          input: name,
          message: `the ${name} header is set by the service (from, to, subject and the other fields of the request); it cannot be given as a custom header`,
        });
      }
    }),
  ))();
const headerValue = /* @__PURE__ */ (() =>
  z
    .string()
    .check(
      z.regex(/^[ -~]{1,870}$/, 'must be 1-870 printable ASCII characters (no line breaks or control characters)'),
    ))();

/** A `scheduled_at` that starts like a date (YYYY-MM-DD) is ISO 8601, read as it always was; anything else is a phrase. */
export const ISO_DATE_START = /^\d{4}-\d{2}-\d{2}/;
const isoDateTime = /* @__PURE__ */ (() => z.iso.datetime({ offset: true }))();
/**
 * `scheduled_at` as POST /emails, /emails/batch, PATCH /emails/{id} and the broadcasts take it: an
 * ISO 8601 date-time with an offset, checked here exactly as before, or an English phrase ("in 1
 * min", "tomorrow at 9am America/New_York") that shared/emails/schedule-phrase.ts reads when the
 * request is handled (a phrase it cannot read is 422 there, naming it). Requests keep the value as
 * given, so an Idempotency-Key replay of "in 1 min" is the same body.
 */
export const scheduledAtInput = /* @__PURE__ */ (() =>
  z.string().check(
    z.minLength(1),
    z.maxLength(256),
    z.superRefine((value, ctx) => {
      if (!ISO_DATE_START.test(value)) return;
      const iso = z.safeParse(isoDateTime, value);
      if (!iso.success)
        ctx.addIssue({
          code: 'invalid_format',
          format: 'datetime',
          input: value,
          message: iso.error.issues[0].message,
        }); // zod's own, as before
    }),
    z.meta({
      description:
        'ISO 8601 with an offset (`2026-11-22T09:00:00Z`), or English natural language counted from the request: `in 1 min`, `in 2 hours`, ' +
        '`tomorrow at 9am`, `next monday 10:00`, optionally ending with a time zone (`EST`, `+10:00`, `America/New_York`); without one, UTC.',
    }),
  ))();

export const MAX_RECIPIENTS = 50;
export const MAX_BATCH = 100;

/** `template.variables`: values by key, a string or a number as the variable is declared. */
const templateRef = /* @__PURE__ */ (() =>
  z.strictObject({
    id: z.string().check(z.minLength(1), z.maxLength(64)),
    variables: z.optional(z.record(z.string().check(z.maxLength(64)), z.union([z.string(), dynamoNumber]))),
  }))();
const FROM_TEMPLATE = 'comes from the template: leave it out when sending with template';

export const sendEmailBody = /* @__PURE__ */ (() =>
  z
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
      scheduled_at: z.optional(scheduledAtInput),
      attachments: z.optional(z.array(emailAttachment).check(z.maxLength(20))),
      template: z.optional(templateRef),
      // Resend's topic scope: sent only to recipients not opted out of the topic (shared/audience/topic-subscriptions.ts)
      topic_id: z.optional(id),
    })
    .check(
      // from and subject are required, unless a template is given (it may have them; shared/templates/templates.ts)
      z.superRefine((e, ctx) => {
        if (e.template !== undefined) return;
        for (const field of ['from', 'subject'] as const) {
          if (e[field] === undefined)
            ctx.addIssue({ code: 'invalid_type', expected: 'string', input: undefined, path: [field] });
        }
      }),
      z.refine((e) => e.template !== undefined || e.html !== undefined || e.text !== undefined, {
        message: 'html or text is required',
        path: ['html'],
      }),
      z.refine((e) => e.template === undefined || e.html === undefined, {
        message: `html ${FROM_TEMPLATE}`,
        path: ['html'],
      }),
      z.refine((e) => e.template === undefined || e.text === undefined, {
        message: `text ${FROM_TEMPLATE}`,
        path: ['text'],
      }),
      z.refine((e) => [e.to, e.cc ?? [], e.bcc ?? []].flat().length <= MAX_RECIPIENTS, {
        message: `to, cc and bcc together take at most ${MAX_RECIPIENTS} addresses`,
        path: ['to'],
      }),
    ))();
export type SendEmailInput = z.output<typeof sendEmailBody>;

export const email = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('email'),
    id,
    /** the RFC 5322 Message-ID header as the recipients see it (`<...@ap-southeast-2.amazonses.com>`), once SES took the email */
    message_id: z.nullable(z.string()),
    /** SES's own id of the message (its API's MessageId, the id in SES's notifications) */
    ses_message_id: z.nullable(z.string()),
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
    /** the template it was rendered from, the topic it was scoped to (when sent so) */
    template_id: z.optional(z.string()),
    topic_id: z.optional(id),
    /** with last_event `suppressed`: why (`suppression_list`: every recipient is suppressed; `topic_opt_out`: none may get the topic) */
    suppressed_reason: z.optional(z.enum(['suppression_list', 'topic_opt_out'])),
    /** test mode only (shared/emails/test-mode-send.ts): the message it would have sent, as received mail offers its `raw` */
    raw: z.optional(
      z.nullable(z.object({ download_url: z.string(), expires_at: timestamp })).check(
        z.meta({
          description:
            'Test-mode emails only: the message that would have been sent (`message/rfc822`, as rendered for SES), to download from ' +
            '`download_url` until `expires_at` (1 hour); null until the email is sent. Live emails have no `raw`.',
        }),
      ),
    ),
  }))();
/** An email as GET /emails/{id} shows it: the schema's type, `last_event` narrowed to the statuses the service writes. */
export type EmailRecord = Omit<z.output<typeof email>, 'last_event'> & { last_event: LastEvent };
/**
 * An email without its content (html, text, headers: stored once apart, shared/emails/content.ts; a test email's `raw`):
 * the items of GET /emails, and `data.object` of email events.
 */
export const emailSummary = /* @__PURE__ */ (() =>
  z.omit(email, { html: true, text: true, headers: true, raw: true }))();
export type EmailSummary = Omit<EmailRecord, 'html' | 'text' | 'headers' | 'raw'>;

/** An attachment of a sent email, as GET /emails/{id}/attachments shows it (Resend's shape; null URL and size for a `path` one not fetched yet). */
export const sentAttachment = /* @__PURE__ */ (() =>
  z.object({
    object: z.literal('attachment'),
    id,
    filename: z.nullable(z.string()),
    size: z.nullable(z.number()),
    content_type: z.string(),
    content_disposition: z.enum(['attachment', 'inline']),
    content_id: z.nullable(z.string()),
    download_url: z.nullable(z.string()),
    expires_at: z.nullable(timestamp),
  }))();

const isoTime = /* @__PURE__ */ (() =>
  z.string().check(
    z.regex(
      /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2}))?$/,
      'must be an ISO 8601 date or date-time',
    ),
    z.refine((value) => Number.isFinite(Date.parse(value)), 'must be a real date'),
  ))();
const addressQuery = /* @__PURE__ */ (() =>
  z.string().check(
    z.maxLength(320),
    z.refine((value) => value.includes('@'), 'must be an email address'),
  ))();

/** GET /emails: the page, and the filters (shared/emails/list-filters.ts says which index answers which). */
export const listEmailsQuery = /* @__PURE__ */ (() =>
  z
    .strictObject({
      ...listQuery.shape,
      status: z.optional(z.enum(LAST_EVENTS)),
      from: z.optional(addressQuery),
      to: z.optional(addressQuery),
      tag: z.optional(
        z
          .string()
          .check(
            z.regex(/^[A-Za-z0-9_-]{1,256}:[A-Za-z0-9_-]{1,256}$/, 'must be name:value (letters, digits, _ or -)'),
          ),
      ),
      created_after: z.optional(isoTime),
      created_before: z.optional(isoTime),
    })
    .check(
      z.refine((q) => !(q.after && q.before), { message: 'use either after or before, not both', path: ['before'] }),
    ))();
