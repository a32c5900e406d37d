import * as z from 'zod/mini';
import { defineOperation } from '../platform/http/operation';
import {
  commonErrors,
  conflictResponse,
  errorEnvelope,
  id,
  listOf,
  listQuery,
  notFoundResponse,
  rateLimitedResponse,
  sendingPausedResponse,
} from '../platform/http/schemas';
import {
  email,
  emailSummary,
  listEmailsQuery,
  MAX_BATCH,
  sentAttachment,
  RESERVED_HEADERS,
  RESERVED_TAG_NAMES,
  scheduledAtInput,
  sendEmailBody,
} from './model';

const emailParams = /* @__PURE__ */ (() => z.strictObject({ email_id: id }))();
const templateNote =
  "With `template: {id, variables?}` (`id` the template's id or alias) the email is the template's published version " +
  'rendered with `variables`: `{{{KEY}}}` inserts a value as it is, `{{KEY}}` HTML-escaped (in html; as it is in text and ' +
  'subject); a declared variable without a value takes its fallback. `html` and `text` must then be left out; `from`, ' +
  "`subject` and `reply_to` default to the template's. 422 (path under `template`): `template_not_found`, " +
  '`template_not_published` (never published), `unknown_template_variable` (not declared), `invalid_template_variable` ' +
  '(not of the declared type), `missing_template_variable` (used, no value, no fallback); a rendered subject must be 1-998 characters (`invalid_subject`).';
const tagsNote = /* @__PURE__ */ (() =>
  `\`tags\` names ${RESERVED_TAG_NAMES.map((n) => `\`${n}\``).join(' and ')} are reserved (the service sets them on every email): 422.`)();
const messageNote = /* @__PURE__ */ (() =>
  'Each of `from`, `to`, `cc`, `bcc` and `reply_to` (or each entry of their lists) is exactly one mailbox: `addr`, `<addr>`, ' +
  '`Name <addr>` or `"Name" <addr>`; lists, groups and comments are refused (422), and a display name may not hold `@`, `<`, `>` or ' +
  'control characters (`,` `;` only inside double quotes, and never in `from`), nor bidi controls (U+202A-202E, U+2066-2069, U+200E, U+200F, U+061C) ' +
  'or characters NFKC turns into `@` `<` `>` `.` (full-width `＠` `＜` `＞` `．`); encoded-words are decoded before that check. ' +
  "An address's local part is a dot-atom (no `[` `]` `\\` or `..`; quoted local parts are refused). " +
  '`subject`, attachment `filename` and `content_type` refuse CR, LF, NUL, U+2028, U+2029 and other control characters (422). ' +
  `\`headers\`: names of printable ASCII but \`:\` (1-126), values of printable ASCII (1-870), as SES takes them; ${RESERVED_HEADERS.join(', ')} ` +
  'and `Resent-*`, `X-SES-*` are set by the service and refused (422, any case).')();
const attachmentsNote =
  '`attachments` (at most 20): each `{filename, content}` (base64) or `{path}` (a URL the sender fetches when it sends: https, ' +
  'every address its host resolves to public, redirects only on the same host, 30 s; a fetch that fails ends the email `failed` ' +
  'with the reason), with `content_type` (else inferred from the file name) and `content_id` (inline, for `cid:` in the html). ' +
  "What a request can bring is Lambda's 6 MB request; with `path` attachments an email may carry 28 MB of attachments " +
  "(SES's 40 MB message, after base64). `GET /emails/{id}/attachments` lists them with download URLs.";
const topicNote =
  '`topic_id` (an unknown topic: 422) sends only to the recipients who may get the topic: a contact of the project that opted ' +
  "out of it (explicitly, or by the topic's `opt_out` default) or is `unsubscribed` is dropped when the email goes; an address " +
  'that is no contact follows the topic\'s default. Nobody left: `suppressed` with `suppressed_reason: "topic_opt_out"` and `email.suppressed`.';
const scheduleNote =
  '`scheduled_at` is ISO 8601 with an offset, or English natural language as Resend takes it (`in 1 min`, `in 2 hours`, `tomorrow at 9am`, ' +
  "optionally ending with a zone: `EST`, `+10:00`, `America/New_York`; without one, UTC), counted from the request's arrival and stored as the ISO instant (UTC). " +
  'A phrase that cannot be read is 422 `invalid_scheduled_at`; more than 30 days ahead is 422 `too_far_ahead`; a time already past sends now.';
const idempotencyNote =
  'With an `Idempotency-Key` header (1-256 characters), the same key and body within 24 h replays the first response ' +
  'and sends nothing new; the same key with another body is 409 `invalid_idempotent_request`. A replay answers only ids of ' +
  'emails that were written.';

/** The send operations' 429: the rate limit's, or a send quota's. */
const quotaResponse = {
  ...rateLimitedResponse,
  description:
    `${rateLimitedResponse.description}. Or the project's send quota has no room for the request's emails: \`daily_quota_exceeded\`, \`monthly_quota_exceeded\` ` +
    '(nothing is accepted). Every accepted send answers `x-resend-daily-quota` and `x-resend-monthly-quota`: the emails accepted this UTC day and month, these included (live keys).',
};

export const send = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'sendEmail',
    summary: 'Send an email',
    description:
      'Stores the email as `queued` (or `scheduled` when `scheduled_at` is in the future) and sends it through SES from the ' +
      "sender's verified domain. Live keys need a verified domain; test keys (`es_test_`) may use any domain of the " +
      'project and never reach SES. `html` or `text` must have content, after rendering a template (422 `missing_content`). ' +
      "The sender checks the From domain again: an email whose domain is no longer the project's, enabled and (live) verified " +
      'ends `failed` with the reason, without reaching SES; deleting a domain cancels its emails still waiting. ' +
      scheduleNote +
      ' ' +
      tagsNote +
      ' ' +
      messageNote +
      ' ' +
      templateNote +
      ' ' +
      attachmentsNote +
      ' ' +
      topicNote +
      ' ' +
      idempotencyNote,
    tags: ['Emails'],
    auth: 'api_key',
    scope: 'sending_access',
    body: sendEmailBody,
    responses: {
      200: { description: 'The email is accepted', schema: z.object({ id }) },
      ...commonErrors,
      403: sendingPausedResponse,
      409: conflictResponse,
      429: quotaResponse,
    },
  }))();

export const sendBatch = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'sendBatchEmails',
    summary: 'Send up to 100 emails at once',
    description:
      'Strict (the default, `x-batch-validation: strict`): every email is validated first; one invalid email refuses the whole batch (422, paths start with its index). ' +
      'Permissive (`x-batch-validation: permissive`, as Resend): the valid emails are sent and the others answered in `errors` ' +
      '(`{index, message}`: the schema, or what the send checks, such as the From domain); 200 even when none is valid. ' +
      'All or nothing: the emails are written together or none is (a batch over one DynamoDB transaction is staged and ' +
      'committed by one write). ' +
      'Each email may use a `template` as in POST /emails; each distinct template is read once. ' +
      scheduleNote +
      ' ' +
      tagsNote +
      ' ' +
      messageNote +
      ' ' +
      idempotencyNote,
    tags: ['Emails'],
    auth: 'api_key',
    scope: 'sending_access',
    body: z.array(sendEmailBody).check(z.minLength(1), z.maxLength(MAX_BATCH)),
    itemsValidation: { header: 'x-batch-validation', permissive: 'permissive', strict: 'strict', item: sendEmailBody },
    responses: {
      200: {
        description:
          'The emails are accepted; with `x-batch-validation: permissive`, also `errors`: the emails left out, by index',
        schema: z.object({
          data: z.array(z.object({ id })),
          errors: z.optional(z.array(z.object({ index: z.number(), message: z.string() }))),
        }),
      },
      ...commonErrors,
      403: sendingPausedResponse,
      409: conflictResponse,
      429: quotaResponse,
    },
  }))();

export const get = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getEmail',
    summary: 'Retrieve an email',
    description:
      'The email with its content (`html`, `text`, `headers`). A test-mode email (sent with an `es_test_` key, never through SES) also has ' +
      '`raw`: a download of the message it would have sent (`message/rfc822`), so a test can assert on what a recipient would get.',
    tags: ['Emails'],
    auth: 'api_key',
    params: emailParams,
    responses: { 200: { description: 'The email', schema: email }, ...commonErrors, 404: notFoundResponse },
  }))();

export const list = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listEmails',
    summary: 'List emails, newest first, filtered',
    description:
      'Each item is the email without its content (`html`, `text`, `headers`), as Resend lists emails: the content is stored once apart ' +
      'from the email and read only by GET /emails/{email_id}. Emails are kept for the retention (`EMAIL_RETENTION_DAYS`, default 30 days). ' +
      "Filters (not Resend's; combinable): `status` (the `last_event`), `from`, `to` (any recipient: to, cc or bcc; bare address, any case), " +
      '`tag` (`name:value`), `created_after` and `created_before` (ISO 8601, exclusive). Each is answered from an index the service keeps ' +
      '(docs/api.md, Listing emails): `status`, `from`, `to` and `tag` follow a change within seconds. With two or more of `status`, `from`, ' +
      '`to` and `tag`, a request reads at most 1,000 candidates: a page may then hold fewer than `limit` emails, or none, with `has_more`; ' +
      '`cursor` (with every `has_more`) is the id to pass as `after` (or `before` when paging back) for the next page.',
    tags: ['Emails'],
    auth: 'api_key',
    query: listEmailsQuery,
    responses: {
      200: {
        description: 'A page of emails',
        schema: z.object({
          ...listOf(emailSummary).shape,
          cursor: z.optional(
            id.check(z.meta({ description: 'With `has_more`: where the next page starts. Not a Resend field.' })),
          ),
        }),
      },
      ...commonErrors,
    },
  }))();

export const update = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'updateEmail',
    summary: 'Reschedule a scheduled email',
    description: scheduleNote,
    tags: ['Emails'],
    auth: 'api_key',
    params: emailParams,
    body: z.strictObject({ scheduled_at: scheduledAtInput }),
    responses: {
      200: { description: 'The email, rescheduled', schema: z.object({ object: z.literal('email'), id }) },
      ...commonErrors,
      404: notFoundResponse,
      409: { description: 'The email is not scheduled (any more)', schema: errorEnvelope },
    },
  }))();

export const cancel = /* @__PURE__ */ (() =>
  defineOperation({
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
  }))();

const retryError = /* @__PURE__ */ (() =>
  z.object({
    name: z.string(),
    message: z.string(),
    statusCode: z.number(),
    errors: z.record(z.string(), z.unknown()),
  }))();
export const retry = /* @__PURE__ */ (() =>
  defineOperation({
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
  }))();

const attachmentParams = /* @__PURE__ */ (() => z.strictObject({ email_id: id, attachment_id: id }))();
const attachmentsDescription =
  "As the email's request gave them, in its order (`after`/`before` take an attachment id of this email); each with a `download_url` " +
  'valid until `expires_at` (1 hour) that serves it under its own file name and type. A `path` attachment has `size`, `download_url` ' +
  'and `expires_at` null until the sender fetched it.';

export const listAttachments = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'listEmailAttachments',
    summary: "List a sent email's attachments",
    description: attachmentsDescription,
    tags: ['Emails'],
    auth: 'api_key',
    params: emailParams,
    query: listQuery,
    responses: {
      200: { description: 'A page of attachments', schema: listOf(sentAttachment) },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const getAttachment = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getEmailAttachment',
    summary: 'Retrieve an attachment of a sent email',
    description: attachmentsDescription,
    tags: ['Emails'],
    auth: 'api_key',
    params: attachmentParams,
    responses: {
      200: { description: 'The attachment', schema: sentAttachment },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

const metricsQuery = /* @__PURE__ */ (() =>
  z.strictObject({
    start_date: z.optional(z.string()),
    end_date: z.optional(z.string()),
    timezone: z.optional(z.string()),
    granularity: z.optional(z.string()),
    metrics: z.optional(z.string()),
    dimensions: z.optional(z.string()),
    domain_id: z.optional(z.string()),
    email_id: z.optional(z.string()),
    broadcast_id: z.optional(z.string()),
  }))();
const metricValues = /* @__PURE__ */ (() => z.record(z.string(), z.number()))();

export const metrics = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'getEmailMetrics',
    summary: "The project's email metrics over a date range",
    description:
      "As the `resend` SDK's `emails.metrics` reads them: counts of live mail per UTC day, kept by the sender and the email-status worker " +
      '(sent, delivered, delivery_delayed, bounced, bounced_permanent, bounced_transient, complained, opened, unique_opened, clicked, ' +
      'unique_clicked, failed, suppressed; received by the inbound worker) and rates (delivery_rate, open_rate, click_rate, bounce_rate, complaint_rate). `start_date` / ' +
      '`end_date` (ISO 8601; default the last 7 days up to now, at most 366 days), `granularity` `daily` (default), `weekly` (from Monday) ' +
      'or `monthly`, `dimensions=period` for a row per period, `metrics` a comma-separated subset. UTC only; `hourly`, other time zones, ' +
      'the `domain`/`email`/`broadcast` dimensions and filters, and `unsubscribed`, `unsubscribe_rate`, `bounced_undetermined` ' +
      'are not offered (422 naming them).',
    tags: ['Emails'],
    auth: 'api_key',
    query: metricsQuery,
    responses: {
      200: {
        description: 'The metrics',
        schema: z.object({
          object: z.literal('metrics'),
          start_date: z.string(),
          end_date: z.string(),
          metrics: z.array(z.string()),
          dimensions: z.array(z.string()),
          granularity: z.string(),
          totals: metricValues,
          data: z.optional(z.array(z.looseObject({ period: z.string() }))),
        }),
      },
      ...commonErrors,
    },
  }))();

const shareNote =
  'Share links (shared/emails/share.ts): `url` is `<API origin>/share/<token>`, a page without a key that shows this one email ' +
  '(subject, From, date, its html in a sandboxed frame without scripts, else its text; never its recipients) until `expires_at`. ' +
  '`expires_in` is a duration in words (`1 hour`, `7 days`, `90 minutes`): default 7 days, at least 1 minute, at most 30 days ' +
  '(422 `invalid_expires_in`); a link never outlives its email: `expires_at` is the earlier of now + `expires_in` and the end of ' +
  "the email's retention. The token is signed (HMAC-SHA256 under a sealed deployment key) and names the project, the email, " +
  "the expiry and the email's share version; each call makes a new link, earlier ones stay valid until they expire or " +
  '`DELETE /emails/{email_id}/share` revokes them all. Test-mode emails can be shared too.';

export const share = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'shareEmail',
    summary: 'Make a share link of an email',
    description: shareNote,
    tags: ['Emails'],
    auth: 'api_key',
    params: emailParams,
    body: z.strictObject({ expires_in: z.optional(z.nullable(z.string().check(z.maxLength(100)))) }),
    responses: {
      200: {
        description: 'The link',
        schema: z.object({ object: z.literal('email'), id, url: z.string(), expires_at: z.string() }),
      },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const unshare = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'revokeEmailShareLinks',
    summary: "Revoke an email's share links",
    description:
      'Every share link of the email made so far answers 404 from now on (links made afterwards work). Revoking an email without links ' +
      'changes nothing visible and answers the same.',
    tags: ['Emails'],
    auth: 'api_key',
    params: emailParams,
    responses: {
      200: {
        description: 'The links are revoked',
        schema: z.object({ object: z.literal('email'), id, revoked: z.literal(true) }),
      },
      ...commonErrors,
      404: notFoundResponse,
    },
  }))();

export const sharedPage = /* @__PURE__ */ (() =>
  defineOperation({
    operationId: 'sharedEmailPage',
    summary: 'The page behind a share link',
    description:
      'No key: the signed token is the credential. An HTML page of the one email (subject, From, date; its html in an `<iframe sandbox srcdoc>` ' +
      "without scripts), with the console's Content-Security-Policy (no remote images: nothing the email loads tells its sender it was seen), " +
      '`Cache-Control: private, no-store`, `X-Robots-Tag: noindex` and `Referrer-Policy: no-referrer`. A token that is malformed, altered, ' +
      'expired or revoked, or whose email is gone, gets the same plain HTML 404 page. ' +
      "This service's unsubscribe links in the html (a broadcast recipient's own) are replaced by `#`.",
    tags: ['Emails'],
    auth: 'none',
    params: z.strictObject({ token: z.string() }),
    responses: {
      200: { description: 'An HTML page', contentType: 'text/html', schema: z.string() },
      404: {
        description: 'An HTML page that says the link does not open',
        contentType: 'text/html',
        schema: z.string(),
      },
    },
  }))();
